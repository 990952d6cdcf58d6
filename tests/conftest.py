import sys
from pathlib import Path

from hypothesis import settings

sys.path.insert(0, str(Path(__file__).parent / "autograd"))  # the engine tests' shared helpers (op_catalogue, differential)
sys.path.insert(0, str(Path(__file__).parent))              # the tool's tests' shared custom ops (custom_ops)

# Property tests draw the same examples on every run (derandomize): a run never passes or
# fails by what Hypothesis happened to draw, and a failure is reproduced by running again.
# Cases that once failed are kept as @example in their tests.
settings.register_profile("diffcompare", max_examples=60, deadline=None, derandomize=True, database=None)
settings.load_profile("diffcompare")
