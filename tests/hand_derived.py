"""Derivatives worked out by hand, shared by the tests that check a tool's answer against them."""

import numpy as np


def rosenbrock_hessian(x):
    """The Hessian of Σ 100 (x_{i+1} - x_i²)² + (1 - x_i)²: tridiagonal, 1200 x_i² - 400 x_{i+1} + 2
    (+ 200 below the first) on the diagonal, 200 last; -400 x_i beside."""
    n = len(x)
    h = np.zeros((n, n))
    for i in range(n - 1):
        h[i, i] += 1200 * x[i] ** 2 - 400 * x[i + 1] + 2
        h[i + 1, i + 1] += 200
        h[i, i + 1] = h[i + 1, i] = -400 * x[i]
    return h


def rosenbrock_gradient(x):
    """∂/∂x_i of Σ 100 (x_{i+1} - x_i²)² + (1 - x_i)²."""
    g = np.zeros_like(x)
    g[:-1] += -400 * x[:-1] * (x[1:] - x[:-1] ** 2) - 2 * (1 - x[:-1])
    g[1:] += 200 * (x[1:] - x[:-1] ** 2)
    return g
