"""LSTM: ADBench's and GradBench's multi-layer LSTM objective (lstm_model, predict,
objective), as in ADBench's PyTorch code.

``main_params`` holds each layer's gate weights and biases (2 l rows of 4 b), ``extra_params``
the input scaling, the output scaling and the output bias (3 rows of b), ``state`` each
layer's hidden state and cell (2 l rows of b), ``sequence`` c characters, one-hot-like rows
of b. The objective is minus the average log-likelihood of each next character (with
ADBench's ``log(sum(exp(ypred)) + 2)`` normalisation; ADBench's PyTorch code sums with
Python's ``sum``, element by element, where this code calls ``torch.sum``). Gradient with
respect to main_params and extra_params. Data: random, of ADBench's sizes (b = 14 characters).

>>> data = make_data("tiny", seed=0)
>>> [p.shape for p in data.params]
[(4, 12), (3, 3)]
"""

from __future__ import annotations

import numpy as np

from diffcompare import autograd

from .common import Data

NAME = "lstm"
TITLE = "LSTM (ADBench LSTM objective)"
# ADBench's lstm_l2_c1024 and lstm_l4_c1024 (b = 14)
SIZES = {"tiny": dict(l=2, c=4, b=3), "small": dict(l=2, c=1024, b=14), "medium": dict(l=4, c=1024, b=14)}


def describe(size):
    s = SIZES[size]
    return f"l={s['l']}, c={s['c']}, b={s['b']}"


def make_data(size, seed=0) -> Data:
    s = SIZES[size]
    l, c, b = s["l"], s["c"], s["b"]
    rng = np.random.default_rng(seed)
    main_params = rng.uniform(-1, 1, (2 * l, 4 * b))
    extra_params = rng.uniform(-1, 1, (3, b))
    state = rng.uniform(-1, 1, (2 * l, b))
    sequence = rng.uniform(-1, 1, (c, b))
    return Data([main_params, extra_params], dict(state=state, sequence=sequence))


def _lstm_model(torch, weight, bias, hidden, cell, _input):
    gates = torch.cat((_input, hidden, _input, hidden)) * weight + bias
    hsize = hidden.shape[0]
    forget = torch.sigmoid(gates[0:hsize])
    ingate = torch.sigmoid(gates[hsize:2 * hsize])
    outgate = torch.sigmoid(gates[2 * hsize:3 * hsize])
    change = torch.tanh(gates[3 * hsize:])
    cell = cell * forget + ingate * change
    hidden = outgate * torch.tanh(cell)
    return hidden, cell


def _predict(torch, w, w2, s, x):
    s2 = s.clone()
    x = x * w2[0]
    for i in range(0, len(s), 2):
        s2[i], s2[i + 1] = _lstm_model(torch, w[i], w[i + 1], s[i], s[i + 1], x)
        x = s2[i]
    return x * w2[1] + w2[2], s2


def _objective(torch, main_params, extra_params, state, sequence):
    total, count = 0.0, 0
    _input = sequence[0]
    all_states = [state]
    for t in range(len(sequence) - 1):
        ypred, new_state = _predict(torch, main_params, extra_params, all_states[t], _input)
        all_states.append(new_state)
        ynorm = ypred - torch.log(torch.sum(torch.exp(ypred)) + 2)
        ygold = sequence[t + 1]
        total += torch.sum(ygold * ynorm)
        count += ygold.shape[0]
        _input = ygold
    return -total / count


def objective_engine(*params, **consts):
    return _objective(autograd, *params, **consts)


def objective_torch(*params, **consts):
    import torch
    return _objective(torch, *params, **consts)


def objective_jax(main_params, extra_params, state, sequence):
    import jax
    import jax.numpy as jnp

    def step(carry, ygold):
        s, x = carry
        x = x * extra_params[0]
        new = []
        for i in range(0, s.shape[0], 2):
            gates = jnp.concatenate((x, s[i], x, s[i])) * main_params[i] + main_params[i + 1]
            h = s.shape[1]
            cell = s[i + 1] * jax.nn.sigmoid(gates[:h]) + jax.nn.sigmoid(gates[h:2 * h]) * jnp.tanh(gates[3 * h:])
            x = jax.nn.sigmoid(gates[2 * h:3 * h]) * jnp.tanh(cell)
            new += [x, cell]
        ypred = x * extra_params[1] + extra_params[2]
        ynorm = ypred - jnp.log(jnp.sum(jnp.exp(ypred)) + 2)
        return (jnp.stack(new), ygold), jnp.sum(ygold * ynorm)

    _, totals = jax.lax.scan(step, (state, sequence[0]), sequence[1:])
    return -jnp.sum(totals) / ((sequence.shape[0] - 1) * sequence.shape[1])
