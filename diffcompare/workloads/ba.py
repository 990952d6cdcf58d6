"""Bundle adjustment: ADBench's and GradBench's reprojection error with the radial
distortion camera model, and the weight error.

A camera is 11 numbers: an angle-axis rotation (0:3), its centre (3:6), the focal length
(6), the principal point (7:9) and two radial distortion coefficients (9:11). Observation i
sees point ``obs[i, 1]`` through camera ``obs[i, 0]`` at ``feats[i]`` with weight ``w[i]``:

    reproj_err_i = w_i (project(cam, X) - feat_i),    w_err_i = 1 - w_i^2

ADBench asks for the (sparse) Jacobian of these residuals; this workload takes the gradient
of their sum of squares / 2 — the least-squares objective — with respect to the cameras,
the points and the weights. The residuals are computed for all observations at once
(ADBench's PyTorch code calls ``project`` once per observation). ``torch.linalg.cross`` (which
the engine lacks) is written out with indexing and ``torch.stack``. The data are random, of
ADBench's sizes, with ADBench's observation pattern (camera i mod n, point i mod m).

>>> data = make_data("tiny", seed=0)
>>> [p.shape for p in data.params]
[(2, 11), (5, 3), (7,)]
"""

from __future__ import annotations

import numpy as np

from diffcompare import autograd

from .common import Data

NAME = "ba"
TITLE = "Bundle adjustment (ADBench BA, sum of squared residuals)"
# ADBench's ba1_n49_m7776_p31843 and ba4_n372_m47423_p204472
SIZES = {"tiny": dict(n=2, m=5, p=7), "small": dict(n=49, m=7776, p=31843), "medium": dict(n=372, m=47423, p=204472)}
ROT, C, F, X0, RAD = 0, 3, 6, 7, 9


def describe(size):
    s = SIZES[size]
    return f"{s['n']} cameras, {s['m']} points, {s['p']} observations"


def make_data(size, seed=0) -> Data:
    s = SIZES[size]
    n, m, p = s["n"], s["m"], s["p"]
    rng = np.random.default_rng(seed)
    cams = np.empty((n, 11))
    cams[:, ROT:ROT + 3] = rng.uniform(-0.3, 0.3, (n, 3))
    cams[:, C:C + 3] = rng.uniform(-1, 1, (n, 3))
    cams[:, F] = rng.uniform(400, 600, n)
    cams[:, X0:X0 + 2] = rng.uniform(-5, 5, (n, 2))
    cams[:, RAD:RAD + 2] = rng.uniform(-1e-2, 1e-2, (n, 2))
    X = np.column_stack([rng.uniform(-1, 1, (m, 2)), rng.uniform(-8, -4, m)])   # in front of the cameras
    w = rng.uniform(0.5, 1.5, p)
    obs = np.column_stack([np.arange(p) % n, np.arange(p) % m]).astype(np.int64)
    feats = rng.uniform(-50, 50, (p, 2))
    return Data([cams, X, w], dict(obs_cam=obs[:, 0].copy(), obs_pt=obs[:, 1].copy(), feats=feats))


def _cross(torch, a, b):
    a0, a1, a2 = a[:, 0], a[:, 1], a[:, 2]
    b0, b1, b2 = b[:, 0], b[:, 1], b[:, 2]
    return torch.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], 1)


def _rodrigues_rotate_point(torch, rot, X):
    theta = torch.sqrt(torch.sum(rot ** 2, 1, keepdim=True))
    costheta, sintheta = torch.cos(theta), torch.sin(theta)
    w = rot / theta
    w_cross_X = _cross(torch, w, X)
    tmp = torch.sum(w * X, 1, keepdim=True) * (1.0 - costheta)
    return X * costheta + w_cross_X * sintheta + w * tmp


def _radial_distort(torch, rad_params, proj):
    rsq = torch.sum(proj ** 2, 1, keepdim=True)
    L = 1.0 + rad_params[:, 0:1] * rsq + rad_params[:, 1:2] * rsq * rsq
    return proj * L


def _project(torch, cam, X):
    Xcam = _rodrigues_rotate_point(torch, cam[:, ROT:ROT + 3], X - cam[:, C:C + 3])
    distorted = _radial_distort(torch, cam[:, RAD:RAD + 2], Xcam[:, 0:2] / Xcam[:, 2:3])
    return distorted * cam[:, F:F + 1] + cam[:, X0:X0 + 2]


def _objective(torch, cams, X, w, obs_cam, obs_pt, feats):
    reproj_err = w.unsqueeze(1) * (_project(torch, cams[obs_cam], X[obs_pt]) - feats)
    w_err = 1.0 - w ** 2
    return 0.5 * (torch.sum(reproj_err ** 2) + torch.sum(w_err ** 2))


def objective_engine(*params, **consts):
    return _objective(autograd, *params, **consts)


def objective_torch(*params, **consts):
    import torch
    return _objective(torch, *params, **consts)


def objective_jax(cams, X, w, obs_cam, obs_pt, feats):
    import jax.numpy as jnp
    cam, Xs = cams[obs_cam], X[obs_pt]
    rot, Xc = cam[:, ROT:ROT + 3], Xs - cam[:, C:C + 3]
    theta = jnp.sqrt(jnp.sum(rot ** 2, 1, keepdims=True))
    wv = rot / theta
    Xcam = Xc * jnp.cos(theta) + jnp.cross(wv, Xc) * jnp.sin(theta) + wv * jnp.sum(wv * Xc, 1, keepdims=True) * (1 - jnp.cos(theta))
    proj = Xcam[:, 0:2] / Xcam[:, 2:3]
    rsq = jnp.sum(proj ** 2, 1, keepdims=True)
    distorted = proj * (1.0 + cam[:, RAD:RAD + 1] * rsq + cam[:, RAD + 1:RAD + 2] * rsq * rsq)
    reproj_err = w[:, None] * (distorted * cam[:, F:F + 1] + cam[:, X0:X0 + 2] - feats)
    return 0.5 * (jnp.sum(reproj_err ** 2) + jnp.sum((1.0 - w ** 2) ** 2))
