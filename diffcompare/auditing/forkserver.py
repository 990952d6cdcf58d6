"""A fork server: one warm process per supervisor that has imported what a worker needs
(the engine, SymPy) and nothing of the user's, and forks a fresh worker on request.

Starting a worker as a new interpreter costs its imports, about a second; a program that
runs many audits (a test suite, the pytest plugin, an audit whose workers crash and are
replaced) paid that for every worker. A fork of this server costs milliseconds and gives
the same thing: a process that has run no user code, in a session of its own, its output
going to the worker's log, in the supervisor's current folder and environment, which dies
with the server, as the server dies with the supervisor.

It never forks the supervisor itself (which may have threads, patched modules, user code
already imported): the server is started as ``python -c``, like a worker, and is
single-threaded. Where it cannot be used (not Linux, or it failed to start) a worker is
started as a new interpreter, as before: :func:`fork_worker` returns None.

The server is started again when the variables read at an interpreter's start (``PYTHON*``,
thread counts of the numerical libraries, ``LD_*``) have changed since it started: a worker
forked from it would not see them. ``ENABLED = False`` starts every worker as a new
interpreter (``benchmarks/supervision_cost.py`` compares the two).
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import socket
import struct
import subprocess
import sys
import threading
import warnings

ENABLED = True              # False: every worker is started as a new interpreter
READY = b"ready"
STARTUP_LIMIT = 60.0        # seconds the server may take to start before workers are started without it
# variables an interpreter or a numerical library reads once, at its start
STARTUP_VARIABLES = ("PYTHON", "OMP_", "OPENBLAS", "GOTO", "MKL_", "BLIS_", "VECLIB", "NUMEXPR", "NPY_", "NUMPY_",
                     "SYMPY", "MPMATH", "LD_")
HOME = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BOOTSTRAP = ("import sys; sys.path[0] = sys.argv[1]; from diffcompare.auditing.workers import serve; "
             "from diffcompare.auditing.forkserver import serve_forks; "
             "serve_forks(int(sys.argv[2]), int(sys.argv[3]), serve)")
_PID = struct.Struct("q")
_CODE = struct.Struct("i")


def die_with_parent(parent: int, subreaper: bool = False):
    """Ask the kernel to kill this process when its parent dies (Linux), and with
    ``subreaper`` to keep the orphans of its descendants below it. Exits at once if the
    parent is already gone."""
    try:
        import ctypes
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)           # PR_SET_PDEATHSIG
        if subreaper:
            libc.prctl(36, 1)                   # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:                  # the parent died before prctl took effect
        os._exit(1)


def available() -> bool:
    """Whether workers are forked from a server: ``ENABLED``, on a platform that can run one
    (Linux: Unix sockets that carry descriptors)."""
    return ENABLED and sys.platform.startswith("linux") and hasattr(socket, "send_fds")


def startup_key() -> tuple:
    """What a worker forked from the server takes from the server's start, not from the
    request: the interpreter, this package's place, the start-up variables."""
    return (sys.executable, HOME,
            tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith(STARTUP_VARIABLES))))


class ForkedProcess:
    """A worker the server forked: the part of ``subprocess.Popen`` a supervisor uses (``pid``,
    ``poll``, ``wait``, ``returncode``). The server reaps it and sends its exit status down a
    pipe of its own; a signal's is negative, as Popen's. If the server died first, the
    worker died with it (SIGKILL)."""

    def __init__(self, pid: int, status_fd: int):
        self.pid, self._status, self.returncode = pid, status_fd, None

    def poll(self):
        if self.returncode is None and select.select([self._status], [], [], 0)[0]:
            self._read()
        return self.returncode

    def wait(self, timeout: float | None = None):
        if self.returncode is None:
            if not select.select([self._status], [], [], timeout)[0]:
                raise subprocess.TimeoutExpired(f"worker {self.pid}", timeout)
            self._read()
        return self.returncode

    def _read(self):
        data = os.read(self._status, _CODE.size)
        os.close(self._status)
        self._status = None
        self.returncode = _CODE.unpack(data)[0] if len(data) == _CODE.size else -signal.SIGKILL

    def __del__(self):
        if getattr(self, "_status", None) is not None:
            try:
                os.close(self._status)
            except OSError:
                pass


class Server:
    """The supervisor's side of one fork server: starts it, asks it for workers."""

    def __init__(self):
        self.key = startup_key()
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-c", BOOTSTRAP, HOME, str(theirs.fileno()), str(os.getpid())],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                pass_fds=(theirs.fileno(),), start_new_session=True, env=dict(os.environ), cwd=os.getcwd())
        finally:
            theirs.close()
        self.socket = mine
        mine.settimeout(STARTUP_LIMIT)
        try:
            answer = mine.recv(len(READY))
        except OSError:
            answer = b""
        if answer != READY:
            self.close()
            raise OSError("the fork server did not start")
        mine.settimeout(None)

    def alive(self) -> bool:
        return self.process.poll() is None

    def fork(self, fds, idle_exit: float) -> ForkedProcess:
        """A new worker running ``serve(fds[0], fds[1], ..., idle_exit)`` with its standard
        output and error on ``fds[2]``, in this process's folder and environment."""
        request = pickle.dumps((os.getcwd(), dict(os.environ), idle_exit))
        socket.send_fds(self.socket, [request], list(fds))
        self.socket.settimeout(STARTUP_LIMIT)
        try:
            data, status, _, _ = socket.recv_fds(self.socket, _PID.size, 1)
        finally:
            self.socket.settimeout(None)
        if len(data) != _PID.size or len(status) != 1:
            for fd in status:
                os.close(fd)
            raise OSError("the fork server did not answer")
        return ForkedProcess(_PID.unpack(data)[0], status[0])

    def close(self):
        try:
            self.socket.close()         # the server sees its end closed and exits
        except OSError:
            pass
        try:
            self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


_SERVER: list = [None, None]        # [the running Server, the start-up key it could not start with]
_LOCK = threading.Lock()


def _forget():
    """In a child forked from the supervisor: the server is its parent's (its socket is
    shared with it), so the child starts its own when it needs one."""
    global _LOCK
    server, _SERVER[:] = _SERVER[0], [None, None]
    _LOCK = threading.Lock()
    if server is not None:
        try:
            server.socket.close()       # (this process's copy only)
        except OSError:
            pass


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget)


def fork_worker(receive_fd: int, send_fd: int, log_fd: int, idle_exit: float) -> ForkedProcess | None:
    """A worker forked from this process's fork server (started on first need, again when
    it died or the start-up variables changed), or None when there is none to be had: the
    caller starts a new interpreter instead. The descriptors are the worker's ends of its
    pipes and its log; the caller closes its copies as it would after a spawn."""
    if not available():
        return None
    with _LOCK:
        server, refused = _SERVER
        key = startup_key()
        if server is not None and (server.key != key or not server.alive()):
            server.close()
            server = _SERVER[0] = None
        if server is None:
            if refused == key:
                return None
            try:
                server = _SERVER[0] = Server()
            except OSError:
                _SERVER[1] = key
                return None
        try:
            return server.fork((receive_fd, send_fd, log_fd), idle_exit)
        except (OSError, EOFError):
            server.close()
            _SERVER[0] = None
            return None


# -- the server's side -----------------------------------------------------------------------

def serve_forks(socket_fd: int, parent: int, serve) -> None:
    """The server's loop: fork a worker running ``serve`` for each request, reap the workers
    and send each one's exit status down its pipe; end when the supervisor closes the socket
    or dies."""
    die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    import sympy  # noqa: F401  (what every worker needs, imported once here)
    channel = socket.socket(fileno=socket_fd)
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_read, False)
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    statuses: dict = {}         # pid -> the write end of its status pipe
    own = (channel.fileno(), wake_read, wake_write)
    try:
        channel.send(READY)
        while True:
            readable = select.select([channel, wake_read], [], [])[0]
            if wake_read in readable:
                while True:
                    try:
                        if not os.read(wake_read, 512):
                            break
                    except BlockingIOError:
                        break
                _reap(statuses)
            if channel in readable:
                data, fds, _, _ = socket.recv_fds(channel, 1 << 20, 3)
                if not data:
                    break
                status_read = _fork_one(pickle.loads(data), fds, serve, statuses, own)
                if status_read is None:
                    break
                socket.send_fds(channel, [_PID.pack(status_read[0])], [status_read[1]])
                os.close(status_read[1])
    except OSError:
        pass
    os._exit(0)         # (the workers die with it: their parent-death signal)


def _reap(statuses: dict):
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        write = statuses.pop(pid, None)
        if write is not None:
            try:
                os.write(write, _CODE.pack(os.waitstatus_to_exitcode(status)))
            except OSError:
                pass
            os.close(write)


def _fork_one(request, fds, serve, statuses: dict, own: tuple):
    """Fork a worker for ``request`` (folder, environment, idle_exit) on ``fds`` (its two pipe
    ends and its log). Returns (its pid, the read end of its status pipe), once it is in a
    session of its own; None in the worker itself if ``serve`` returns."""
    folder, environment, idle_exit = request
    receive_fd, send_fd, log_fd = fds
    status_read, status_write = os.pipe()
    started_read, started_write = os.pipe()
    me = os.getpid()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)     # (a multi-threaded BLAS: it re-creates its threads)
        pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.setsid()
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            for fd in (*own, status_read, status_write, started_read, *statuses.values()):
                os.close(fd)
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            os.dup2(log_fd, 1)
            os.dup2(log_fd, 2)
            os.close(null)
            os.close(log_fd)
            try:
                os.chdir(folder)
            except OSError:
                pass
            os.environ.clear()
            os.environ.update(environment)
            _reseed()
            os.write(started_write, b"s")
            os.close(started_write)
            serve(receive_fd, send_fd, me, idle_exit)
            code = 0
        except BaseException:       # noqa: BLE001  (whatever happens, the fork never returns to the server's loop)
            try:
                import traceback
                traceback.print_exc()
                sys.stderr.flush()
            except BaseException:   # noqa: BLE001, S110
                pass
        finally:
            os._exit(code)
    for fd in (receive_fd, send_fd, log_fd, started_write):
        os.close(fd)
    statuses[pid] = status_write
    os.read(started_read, 1)        # its session is its own before the supervisor may signal it
    os.close(started_read)
    return pid, status_read


def _reseed():
    """A fresh interpreter draws NumPy's global random state from the system; a fork would
    share the server's (Python's ``random`` reseeds itself on fork)."""
    numpy_random = sys.modules.get("numpy.random")
    if numpy_random is not None:
        numpy_random.seed()
