"""Hand tracking: ADBench's and GradBench's skinned hand model (the "simple" variant).

26 pose parameters -> 25 x 3 pose table (global rotation, scale, translation, then one
row of Euler angles per bone) -> each bone's rotation (Euler angles, ``torch.eye`` filled
entry by entry) -> posed relative transforms -> absolute transforms along the bone tree ->
skinning transforms -> linear-blend skinned vertices -> global angle-axis rotation and
translation -> residuals against the points' corresponding vertices. The gradient is that of
the sum of squared residuals / 2 with respect to the 26 parameters.

The code follows ADBench's PyTorch hand objective (per-bone loops, in-place assignment into
``torch.eye``/``torch.zeros``), except that the residuals are taken for all points at once
(ADBench stacks one difference per point). The model is synthetic, of ADBench's sizes
(22 bones: a root, a wrist and five fingers of four bones; 544 vertices; each vertex
weighted on at most three bones), generated deterministically; ADBench's model files are
not needed.

>>> data = make_data("tiny", seed=0)
>>> [p.shape for p in data.params]
[(26,)]
"""

from __future__ import annotations

import numpy as np

from diffcompare import autograd

from .common import Data

NAME = "ht"
TITLE = "Hand tracking (ADBench hand model, simple variant)"
N_BONES, N_VERTS, N_THETA = 22, 544, 26
# correspondences: ADBench's hand1_t26_c100 and hand5_t26_c1600
SIZES = {"tiny": dict(points=5, verts=20), "small": dict(points=100, verts=N_VERTS), "medium": dict(points=1600, verts=N_VERTS)}


def describe(size):
    s = SIZES[size]
    return f"{N_BONES} bones, {s['verts']} vertices, {s['points']} points"


def _parents():
    parents = [-1, 0]
    for finger in range(5):
        base = 2 + 4 * finger
        parents += [1, base, base + 1, base + 2]
    return np.array(parents)


def _rotation(rng, scale):
    """A random rotation matrix (Rodrigues' formula of a random angle-axis vector)."""
    v = rng.uniform(-scale, scale, 3)
    t = np.linalg.norm(v)
    k = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]]) / t
    return np.eye(3) + np.sin(t) * k + (1 - np.cos(t)) * k @ k


def make_data(size, seed=0) -> Data:
    s = SIZES[size]
    rng = np.random.default_rng(seed)
    parents = _parents()
    base_relatives = np.zeros((N_BONES, 4, 4))
    for i in range(N_BONES):
        base_relatives[i, :3, :3] = _rotation(rng, 0.3)
        base_relatives[i, :3, 3] = [rng.uniform(-0.2, 0.2), rng.uniform(0.5, 1.0) if i else 0.0, rng.uniform(-0.2, 0.2)]
        base_relatives[i, 3, 3] = 1.0
    absolutes = np.zeros_like(base_relatives)
    for i in range(N_BONES):
        absolutes[i] = base_relatives[i] if parents[i] < 0 else absolutes[parents[i]] @ base_relatives[i]
    inverse_base_absolutes = np.linalg.inv(absolutes)
    n_verts = s["verts"]
    bone_of = rng.integers(0, N_BONES, n_verts)
    base_positions = np.ones((n_verts, 4))
    base_positions[:, :3] = absolutes[bone_of, :3, 3] + rng.uniform(-0.3, 0.3, (n_verts, 3))
    weights = np.zeros((n_verts, N_BONES))
    for v in range(n_verts):
        bones = {bone_of[v], parents[bone_of[v]] if parents[bone_of[v]] >= 0 else bone_of[v], rng.integers(0, N_BONES)}
        w = rng.uniform(0.2, 1.0, len(bones))
        weights[v, sorted(bones)] = w / w.sum()
    theta = np.concatenate([rng.uniform(-0.5, 0.5, 3), rng.uniform(-1, 1, 3), rng.uniform(-0.4, 0.4, N_THETA - 6)])
    correspondences = rng.integers(0, n_verts, s["points"])
    points = rng.standard_normal((s["points"], 3)) + base_positions[correspondences, :3]
    return Data([theta], dict(nbones=N_BONES, parents=[int(p) for p in parents], base_relatives=base_relatives,
                              inverse_base_absolutes=inverse_base_absolutes, base_positions=base_positions,
                              weights=weights, points=points, correspondences=correspondences))


def _to_pose_params(torch, theta, nbones):
    pose_params = torch.zeros((nbones + 3, 3), dtype=torch.float64)
    pose_params[0, :] = theta[0:3]
    pose_params[1, :] = torch.ones((3,), dtype=torch.float64)
    pose_params[2, :] = theta[3:6]
    i_theta, i_pose_params = 6, 5
    for _finger in range(5):
        for i in (1, 2, 3):
            pose_params[i_pose_params, 0] = theta[i_theta]
            i_theta += 1
            if i == 1:
                pose_params[i_pose_params, 1] = theta[i_theta]
                i_theta += 1
            i_pose_params += 1
        i_pose_params += 1
    return pose_params


def _euler_angles_to_rotation_matrix(torch, xzy):
    tx, ty, tz = xzy[0], xzy[2], xzy[1]
    Rx = torch.eye(3, dtype=torch.float64)
    Rx[1, 1] = torch.cos(tx)
    Rx[2, 1] = torch.sin(tx)
    Rx[1, 2] = -Rx[2, 1]
    Rx[2, 2] = Rx[1, 1]
    Ry = torch.eye(3, dtype=torch.float64)
    Ry[0, 0] = torch.cos(ty)
    Ry[2, 0] = torch.sin(ty)
    Ry[0, 2] = -Ry[2, 0]
    Ry[2, 2] = Ry[0, 0]
    Rz = torch.eye(3, dtype=torch.float64)
    Rz[0, 0] = torch.cos(tz)
    Rz[1, 0] = torch.sin(tz)
    Rz[0, 1] = -Rz[1, 0]
    Rz[1, 1] = Rz[0, 0]
    return (Rz @ Ry) @ Rx


def _angle_axis_to_rotation_matrix(torch, angle_axis):
    n = torch.sqrt(torch.sum(angle_axis ** 2))
    if n < 0.0001:
        return torch.eye(3, dtype=torch.float64)
    x, y, z = angle_axis / n
    s, c = torch.sin(n), torch.cos(n)
    R = torch.zeros((3, 3), dtype=torch.float64)
    R[0, 0] = x * x + (1 - x * x) * c
    R[0, 1] = x * y * (1 - c) - z * s
    R[0, 2] = x * z * (1 - c) + y * s
    R[1, 0] = x * y * (1 - c) + z * s
    R[1, 1] = y * y + (1 - y * y) * c
    R[1, 2] = y * z * (1 - c) - x * s
    R[2, 0] = x * z * (1 - c) - y * s
    R[2, 1] = z * y * (1 - c) + x * s
    R[2, 2] = z * z + (1 - z * z) * c
    return R


def _skinned_vertex_positions(torch, pose_params, parents, base_relatives, inverse_base_absolutes, base_positions, weights):
    relatives = []
    for i in range(base_relatives.shape[0]):
        tr = torch.eye(4, dtype=torch.float64)
        tr[:3, :3] = _euler_angles_to_rotation_matrix(torch, pose_params[3 + i])
        relatives.append(base_relatives[i] @ tr)
    absolutes = []
    for i, parent in enumerate(parents):
        absolutes.append(relatives[i] if parent == -1 else absolutes[parent] @ relatives[i])
    transforms = torch.stack(absolutes) @ inverse_base_absolutes              # (bones, 4, 4)
    positions = (transforms @ base_positions.transpose(0, 1)).permute(2, 0, 1)  # (verts, bones, 4)
    positions = torch.sum(positions * weights.unsqueeze(2), 1)[:, :3]
    R = _angle_axis_to_rotation_matrix(torch, pose_params[0])
    R = R * pose_params[1]
    return (R @ positions.transpose(0, 1)).transpose(0, 1) + pose_params[2]


def _objective(torch, theta, nbones, parents, base_relatives, inverse_base_absolutes, base_positions, weights,
               points, correspondences):
    pose_params = _to_pose_params(torch, theta, nbones)
    vertices = _skinned_vertex_positions(torch, pose_params, parents, base_relatives, inverse_base_absolutes,
                                         base_positions, weights)
    err = points - vertices[correspondences]
    return 0.5 * torch.sum(err ** 2)


def objective_engine(*params, **consts):
    return _objective(autograd, *params, **consts)


def objective_torch(*params, **consts):
    import torch
    return _objective(torch, *params, **consts)


def objective_jax(theta, nbones, parents, base_relatives, inverse_base_absolutes, base_positions, weights,
                  points, correspondences):
    import jax.numpy as jnp
    rows = [theta[0:3], jnp.ones(3), theta[3:6], jnp.zeros(3), jnp.zeros(3)]
    i_theta = 6
    for _finger in range(5):
        rows.append(jnp.stack([theta[i_theta], theta[i_theta + 1], 0.0]))
        rows += [jnp.stack([theta[i_theta + 2], 0.0, 0.0]), jnp.stack([theta[i_theta + 3], 0.0, 0.0]), jnp.zeros(3)]
        i_theta += 4
    pose = jnp.stack(rows)
    tx, tz, ty = pose[3:, 0], pose[3:, 1], pose[3:, 2]
    one, zero = jnp.ones_like(tx), jnp.zeros_like(tx)

    def mat(*entries):
        return jnp.stack([jnp.stack(entries[0:3], -1), jnp.stack(entries[3:6], -1), jnp.stack(entries[6:9], -1)], -2)
    Rx = mat(one, zero, zero, zero, jnp.cos(tx), -jnp.sin(tx), zero, jnp.sin(tx), jnp.cos(tx))
    Ry = mat(jnp.cos(ty), zero, -jnp.sin(ty), zero, one, zero, jnp.sin(ty), zero, jnp.cos(ty))
    Rz = mat(jnp.cos(tz), -jnp.sin(tz), zero, jnp.sin(tz), jnp.cos(tz), zero, zero, zero, one)
    tr = jnp.tile(jnp.eye(4), (nbones, 1, 1)).at[:, :3, :3].set(Rz @ Ry @ Rx)
    relatives = base_relatives @ tr
    absolutes = []
    for i, parent in enumerate(parents):
        absolutes.append(relatives[i] if parent == -1 else absolutes[parent] @ relatives[i])
    transforms = jnp.stack(absolutes) @ inverse_base_absolutes
    positions = jnp.transpose(transforms @ base_positions.T, (2, 0, 1))
    positions = jnp.sum(positions * weights[:, :, None], 1)[:, :3]
    n = jnp.sqrt(jnp.sum(pose[0] ** 2))
    x, y, z = pose[0] / n
    s, c = jnp.sin(n), jnp.cos(n)
    R = jnp.array([[x * x + (1 - x * x) * c, x * y * (1 - c) - z * s, x * z * (1 - c) + y * s],
                   [x * y * (1 - c) + z * s, y * y + (1 - y * y) * c, y * z * (1 - c) - x * s],
                   [x * z * (1 - c) - y * s, z * y * (1 - c) + x * s, z * z + (1 - z * z) * c]]) * pose[1]
    vertices = (R @ positions.T).T + pose[2]
    return 0.5 * jnp.sum((points - vertices[correspondences]) ** 2)
