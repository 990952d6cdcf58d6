"""Write the example notebooks (examples/*.ipynb) from the cells below: run
``python examples/make_notebooks.py`` after editing them. The notebooks are written without
outputs; each report is a cell's last expression, which Jupyter shows once, as HTML tables
(and a plot where the command has one). tests/docs/test_notebooks.py runs them.
"""

from __future__ import annotations

import pathlib

from diffcompare.render.notebook import code_cell, markdown_cell, notebook_json

HERE = pathlib.Path(__file__).resolve().parent

# each notebook: its file name and its cells, ("md", text) or ("code", source)
NOTEBOOKS = {
    "01_compare_methods.ipynb": [
        ("md", "# Differentiating one function several ways\n\n"
               "`diffcompare.compare` differentiates `f` by reverse-mode autograd, SymPy, finite differences and "
               "more, and measures each against an exact reference (SymPy's derivative evaluated to 30 digits). "
               "A report shows as tables: every method, its error, the digits it got right and its verdict."),
        ("code", "import diffcompare"),
        ("code", 'diffcompare.compare("sin(x)*exp(y) + log(1 + z**2)", at={"x": 1, "y": 0.5, "z": 2}, repeat=1)'),
        ("md", "Central differences lose about half the digits; the complex step keeps them all. At a point where "
               "`f` has a kink the verdicts are *inconclusive*, not wrong:"),
        ("code", 'diffcompare.compare("abs(x) + x**2", at={"x": 0}, methods="autograd,central,forward", repeat=1)'),
        ("md", "The Jacobian of a vector function at 20 random points: one row per method, its worst entry and point."),
        ("code", 'jacobian = diffcompare.compare("[x*y, sin(x)*y]", kind="jacobian", points=20,\n'
                 '                              box={"x": (-1, 1), "y": (0.5, 2)}, repeat=1)\n'
                 "jacobian"),
        ("md", "The same report as data, for scripts:"),
        ("code", "jacobian.verdicts()"),
    ],
    "02_backward_pass.ipynb": [
        ("md", "# The backward pass node by node\n\n"
               "`diffcompare.explain` records the graph of `f`, walks it backward as `backward()` does, and shows "
               "what every node receives and sends (the vector-Jacobian product)."),
        ("code", "import diffcompare\n"
                 "from diffcompare import autograd as ag\n"
                 "from diffcompare.render.graph import html_report as graph\n"
                 "from IPython.display import HTML"),
        ("code", 'walk = diffcompare.explain("sin(x)*x", {"x": 2.0}, check=True)\nwalk'),
        ("md", "The graph drawn: arrows point the way gradients flow, each labelled with what it sends."),
        ("code", "HTML(graph(walk))"),
        ("md", "## retain_graph\n\nA backward pass frees the values the graph saved. A second pass needs "
               "`retain_graph=True` on the first, and gradients *accumulate* in `.grad`:"),
        ("code", "x = ag.tensor([1.0, 2.0], requires_grad=True)\n"
                 "y = (x * x).sum()\n"
                 "y.backward(retain_graph=True)\n"
                 "y.backward()\n"
                 "print(x.grad)          # 2x + 2x\n"
                 "try:\n"
                 "    y.backward()       # the graph was freed by the second pass\n"
                 "except RuntimeError as error:\n"
                 "    print(str(error).split('.')[0])"),
        ("md", "## create_graph\n\n`create_graph=True` records the backward pass itself, so that the gradient "
               "can be differentiated again: the second derivative of x⁴ is 12x²."),
        ("code", "x = ag.tensor(3.0, requires_grad=True)\n"
                 "(first,) = ag.grad(x ** 4, x, create_graph=True)\n"
                 "(second,) = ag.grad(first, x)\n"
                 "print(first, second)   # 4·27 = 108, 12·9 = 108"),
    ],
    "03_finite_difference_error.ipynb": [
        ("md", "# Finite-difference error against the step\n\n"
               "`diffcompare.step_sweep` differentiates `f` by forward, central and five-point differences and the "
               "complex step at h = 10⁻¹ … 10⁻²⁰, in float64 and float32. Truncation error falls as h shrinks, "
               "rounding error rises: each curve has a best step, near the error model's prediction."),
        ("code", "import diffcompare"),
        ("code", 'diffcompare.step_sweep("exp(x)", {"x": 1.0})'),
        ("md", "The complex step has no subtraction, hence no rounding error to grow: its curve stays flat."),
    ],
    "04_expression_swell.ipynb": [
        ("md", "# Expression swell\n\n"
               "Symbolic differentiation writes the derivative out as one expression; for the n-fold logistic "
               "map it grows much faster than `f`. Common subexpressions (`cse`) and reverse mode keep it small."),
        ("code", "import diffcompare"),
        ("code", 'diffcompare.swell("logistic", [1, 2, 3, 4, 5], expressions=2)'),
    ],
    "05_audit_custom_backward.ipynb": [
        ("md", "# Auditing a custom backward rule\n\n"
               "Swish(x) = x·sigmoid(x) has the derivative sigmoid(x) + x·sigmoid(x)(1 − sigmoid(x)). "
               "The backward below forgets the second term. `diffcompare.audit` checks autograd's gradient "
               "against the exact one at random and adversarial points."),
        ("code", "import diffcompare\n"
                 "from diffcompare import autograd as ag\n"
                 "from diffcompare.functions import sigmoid\n"
                 "\n"
                 "class Swish(ag.Function):\n"
                 "    @staticmethod\n"
                 "    def forward(ctx, x):\n"
                 "        ctx.save_for_backward(x)\n"
                 "        return x * sigmoid(x)\n"
                 "\n"
                 "    @staticmethod\n"
                 "    def backward(ctx, grad):\n"
                 "        (x,) = ctx.saved_tensors\n"
                 "        return grad * sigmoid(x)      # wrong: + x·sigmoid(x)(1 − sigmoid(x)) is missing\n"
                 "\n"
                 "def swish(x):\n"
                 "    return Swish.apply(x)"),
        ("code", 'diffcompare.audit(swish, domain={"x": (-3, 3)}, random=10, name="swish, wrong backward")'),
        ("md", "`explain(..., check=True)` names the node whose rule is wrong:"),
        ("code", 'walk = diffcompare.explain(swish, {"x": 0.8}, check=True)\n'
                 "walk.first_wrong.name, walk.first_wrong.detail"),
    ],
}


def notebook(cells, prefix: str) -> str:
    """An nbformat 4.5 notebook of ``cells`` as JSON, with no outputs."""
    return notebook_json([markdown_cell(text) if kind == "md" else code_cell(text) for kind, text in cells], prefix)


def write_all(folder: pathlib.Path = HERE) -> list:
    """Write every notebook whose file differs from its cells; the paths written."""
    written = []
    for name, cells in NOTEBOOKS.items():
        path = folder / name
        text = notebook(cells, path.stem[:2])
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            written.append(path)
    return written


if __name__ == "__main__":
    written = write_all()
    print("\n".join(f"wrote {path.name}" for path in written) or f"the {len(NOTEBOOKS)} notebooks are up to date")
