"""diffcompare's reverse-mode automatic differentiation engine, with PyTorch's semantics on
NumPy arrays. PyTorch code ports by changing the import:

>>> from diffcompare import autograd as ag
>>> x = ag.tensor([2.0, 3.0, 4.0], requires_grad=True)
>>> y = x ** 2
>>> y.backward(ag.ones_like(y))
>>> x.grad
tensor([4., 6., 8.])
"""

from math import e, inf, nan, pi  # noqa: F401  (torch.e, torch.inf, torch.nan, torch.pi)

from . import dtypes
from .torch_version import __version__  # noqa: F401  (torch.__version__)
from .device import accelerator, backends, cuda, device, get_default_device, set_default_device
from .backward import backward, grad
from .dtypes import (bool, cdouble, cfloat, complex64, complex128, double, float, float16, float32,  # noqa: A004
                     float64, half, int, int32, int64, long)
from .dtypes import bfloat16, get_default_dtype, set_default_dtype
from .dtypes import channels_last, channels_last_3d, contiguous_format, memory_format, preserve_format
from .dtypes import layout, sparse_coo, sparse_csr, strided
from .dtypes import int8, int16, short, uint8, uint16, uint32, uint64
from .grad_mode import (detect_anomaly, enable_grad, inference_mode, is_anomaly_check_nan_enabled, is_anomaly_enabled,
                        is_grad_enabled, is_inference_mode_enabled, no_grad, set_detect_anomaly, set_grad_enabled)
from .generators import Generator
from .size import Size
from .storage import TypedStorage, UntypedStorage
from .graph import AccumulateGrad, Node
from .tensor import (Tensor, arange, as_tensor, empty, empty_like, empty_strided, eye, from_numpy, full, full_like, is_tensor,
                     linspace, manual_seed, ones, ones_like, rand, rand_like, randint, randint_like, randn, randn_like,
                     randperm, tensor, zeros, zeros_like)
from . import operators  # noqa: F401  (Tensor's operators and methods: its base TensorOperators)
from .torch_functions import *  # noqa: F401,F403  (ag.sin, ag.cat, ...: every op family's PUBLIC)
spmm = mm  # noqa: F405  (torch.spmm of dense matrices is mm; sparse tensors are out of scope)
from .function import Function, FunctionCtx
from .autograd.variable import Variable  # (torch.autograd.Variable: `ag.autograd` is this package)
from .legacy import (BoolTensor, ByteTensor, CharTensor, DoubleTensor, FloatTensor, HalfTensor, IntTensor,
                     LongTensor, ShortTensor, set_default_tensor_type)
from . import fft, forward_ad, functional, linalg, special
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from . import nn, optim
from . import amp, random, return_types, serialization, signal, testing, version
from .tensor import get_rng_state, initial_seed, seed, set_rng_state
from .serialization import load, save
from .printing import get_printoptions, set_printoptions
from .amp import autocast, get_autocast_dtype, is_autocast_cpu_enabled, is_autocast_enabled
cuda.amp = amp.CUDA_AMP
cpu = amp.CPU
from .nn.functional import cosine_similarity, pairwise_distance  # noqa: F401  (torch.cosine_similarity, ...)
from .nn.utils.parametrizations import norm_except_dim  # noqa: F401  (torch.norm_except_dim, weight_norm's)
from .nn.functional import alpha_dropout, dropout, feature_alpha_dropout  # noqa: F401  (torch.dropout, ...)
from .settings import (compile, get_float32_matmul_precision, is_warn_always_enabled,  # noqa: F401,A004
                       set_float32_matmul_precision, set_warn_always)
from .random import default_generator  # noqa: F401  (torch.default_generator)
newaxis = None  # noqa: E305  (torch.newaxis, NumPy's: None in an index)
GradScaler = amp.GradScaler
from . import __future__, func, functorch, hub, library, multiprocessing, profiler, utils  # noqa: F404  (torch.__future__, a submodule)
from .vmapping import vmap

autograd = __import__("sys").modules[__name__]   # `ag.autograd.grad` reads like `torch.autograd.grad`
from .autograd import anomaly_mode  # noqa: E402,F401  (torch.autograd.anomaly_mode as an attribute path)
from .ops.sampling import sample_dirichlet as _sample_dirichlet, standard_gamma as _standard_gamma  # noqa: E402,F401
from . import distributions  # noqa: E402  (torch.distributions)

# PyTorch's NumPy-style keywords (axis=, keepdims=, x=, size=) on torch functions and Tensor methods
from .numpy_names import accept_numpy_names as _accept_numpy_names  # noqa: E402
from .operators import TensorOperators as _TensorOperators  # noqa: E402
for _namespace in (globals(), vars(fft), vars(linalg), vars(special), _TensorOperators, Tensor):
    _accept_numpy_names(_namespace)
del _namespace
