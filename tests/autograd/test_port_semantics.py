"""Semantics that ported PyTorch code reads beside values, each compared with real PyTorch:
which forward-AD tangents carry history (and under which node), the nodes a double backward
through sum/mean/squeeze names, vmap's result node, and the meta device's placeholders."""

import copy

import pytest

from diffcompare import autograd as ag

from differential import assert_same

torch = pytest.importorskip("torch")


def _name(t):
    return None if t is None or t.grad_fn is None else type(t.grad_fn).__name__


# --- forward AD: a tangent has history when its formula reads a tensor that requires grad -----

FORWARD_CASES = {
    "mul by a plain tensor": lambda lib, d, q, c: d * c,
    "mul by one that requires grad": lambda lib, d, q, c: d * q,
    "add": lambda lib, d, q, c: d + q,
    "square": lambda lib, d, q, c: d ** 2,
    "exp": lambda lib, d, q, c: d.exp(),
    "matmul by a plain tensor": lambda lib, d, q, c: c @ d,
    "linear": lambda lib, d, q, c: lib.nn.functional.linear(c, d, c[0]),
    "sum": lambda lib, d, q, c: d.sum(),
    "cat": lambda lib, d, q, c: lib.cat([d, q]),
    "max": lambda lib, d, q, c: d.max(),
}


@pytest.mark.parametrize("case", sorted(FORWARD_CASES))
def test_a_tangents_history_as_pytorch(case):
    def program(lib):
        g = lib.Generator().manual_seed(0) if lib is ag else None
        values = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75], [2.0, 1.0, 3.0]]
        p = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        q = lib.tensor(values, dtype=lib.float64, requires_grad=True) * 2
        c = lib.tensor(values, dtype=lib.float64) - 1
        with lib.autograd.forward_ad.dual_level():
            d = lib.autograd.forward_ad.make_dual(p, lib.ones(3, 3, dtype=lib.float64))
            out = FORWARD_CASES[case](lib, d, q, c)
            tangent = lib.autograd.forward_ad.unpack_dual(out).tangent
        del g
        return [_name(tangent), tangent.requires_grad, tangent]
    assert_same(program(ag), program(torch))


def test_a_custom_functions_jvp_reading_its_output_has_history():
    def program(lib):
        class Exp(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                result = lib.exp(x)
                ctx.result = result
                return result

            @staticmethod
            def jvp(ctx, t):
                return t * ctx.result

        p = lib.tensor([0.5, 1.0], dtype=lib.float64, requires_grad=True)
        with lib.autograd.forward_ad.dual_level():
            out = Exp.apply(lib.autograd.forward_ad.make_dual(p, lib.tensor([1.0, 2.0], dtype=lib.float64)))
            tangent = lib.autograd.forward_ad.unpack_dual(out).tangent
        return [_name(tangent), tangent]
    assert_same(program(ag), program(torch))


# --- double backward: the nodes a gradient with history goes through ---------------------------

REDUCERS = {
    "sum over a dim": lambda x: x.exp().sum(dim=1),
    "sum of all": lambda x: x.exp().sum(),
    "mean over a dim": lambda x: x.exp().mean(1),
    "sum over two dims": lambda x: x.exp().sum((0, 1)),
    "squeeze": lambda x: x.exp().unsqueeze(1).squeeze(1).sum(0),
}


@pytest.mark.parametrize("case", sorted(REDUCERS))
def test_the_jvp_by_double_backward_names_the_nodes_pytorch_does(case):
    def program(lib):
        x = lib.tensor([[0.5, 1.0, -1.0], [2.0, 0.0, 0.25]], dtype=lib.float64, requires_grad=True)
        v = lib.ones(2, 3, dtype=lib.float64)
        out, jvp = lib.autograd.functional.jvp(REDUCERS[case], x, v, create_graph=True)
        first, = lib.autograd.grad(out.sum(), x, create_graph=True)
        second, = lib.autograd.grad((first * first).sum(), x)
        return [_name(jvp), jvp, second]
    assert_same(program(ag), program(torch))


def test_a_sub_gradient_with_history_is_negated_not_multiplied():
    def program(lib):
        y = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        p = lib.tensor([0.5, 3.0], dtype=lib.float64, requires_grad=True)
        gy, gp = lib.autograd.grad(((0.5 * p - y) ** 2).mean(), (y, p), create_graph=True)
        return [_name(gy), gy, gp]
    assert_same(program(ag), program(torch))


# --- vmap: the result's node is named after the examples' last operation ------------------------

def test_vmaps_result_node_is_named_as_pytorchs_batched_op():
    def program(lib):
        w = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
        xs = lib.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]], dtype=lib.float64)
        relu = lib.vmap(lambda v: v.dot(w).relu())(xs)
        scaled = lib.vmap(lambda v: v * w)(xs)
        relu.sum().backward()
        return [_name(relu), _name(scaled), relu, scaled, w.grad]
    assert_same(program(ag), program(torch))


# --- the meta device ----------------------------------------------------------------------------

def test_meta_placeholders_their_shapes_devices_and_errors():
    def program(lib):
        x = lib.empty(3, 4, device="meta")
        model = lib.nn.Linear(2, 3, dtype=lib.float64)
        stateless = copy.deepcopy(model).to("meta")
        y = lib.ones(2, dtype=lib.float64, requires_grad=True).to("meta")
        like = lib.empty_like(model.weight, device="meta")
        out = lib.func.functional_call(stateless, dict(model.named_parameters()),
                                       (lib.ones(1, 2, dtype=lib.float64),))
        errors = []
        for read in (lambda: x.tolist(), lambda: x.numpy(), lambda: x.cpu()):
            try:
                read()
                errors.append(None)
            except Exception as error:   # noqa: BLE001 - the error is the result
                errors.append(type(error).__name__)
        return [str(x.device), x.is_meta, list(x.shape), str(stateless.weight.device), stateless.weight.requires_grad,
                type(stateless.weight).__name__, str(model.weight.device), _name(y), str(like.device),
                list(out.shape), _name(out), repr(x).replace("torch.", "")] + errors
    assert_same(program(ag), program(torch))


def test_deepcopy_keeps_parameters_and_grads_and_refuses_non_leaves():
    def program(lib):
        p = lib.nn.Parameter(lib.tensor([1.0, 2.0], dtype=lib.float64))
        (p * p).sum().backward()
        q = copy.deepcopy(p)
        try:
            copy.deepcopy(p * 2)
            refused = False
        except RuntimeError:
            refused = True
        return [type(q).__name__, q.requires_grad, q.grad, q is not p, refused]
    assert_same(program(ag), program(torch))
