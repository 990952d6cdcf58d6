import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "autograd"))  # the engine tests' shared helpers (op_catalogue, differential)
