"""Entry point of the ``diffcompare`` command.

Imports of the library stay inside the commands so that ``diffcompare --help`` is quick.
The command line only parses arguments, calls the library and picks a renderer.
"""

from __future__ import annotations

import argparse
import re
import sys

from diffcompare.cli import help as texts
from diffcompare.cli.parser import Parser, disallow_abbreviations, visible
from diffcompare.version import install_hint

REPORT_FORMATS = {".json": "json", ".md": "markdown", ".markdown": "markdown", ".html": "html", ".htm": "html",
                  ".tex": "latex", ".xml": "junit"}


def build_parser() -> argparse.ArgumentParser:
    """The command line: one subcommand each, their options in the functions below."""
    from diffcompare.version import __version__

    parser = Parser(
        prog="diffcompare",
        description=texts.DESCRIPTION,
        epilog=texts.EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-V", "--version", action="version", version=f"diffcompare {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    compare = _compare_command(commands)
    explain = _explain_command(commands)
    graph = _graph_command(commands)
    steps = _steps_command(commands)
    _swell_command(commands)
    lecture = _lecture_command(commands)
    _audit_command(commands)
    parser.expression_parsers = {"compare": compare, "explain": explain, "graph": graph, "steps": steps,
                                 "lecture": lecture}
    functions = commands.add_parser("functions", help="list the functions the expression language knows",
                                    description=texts.FUNCTIONS_DESCRIPTION)
    functions.add_argument("--format", choices=("text", "json"), default="text",
                           help="text: a table fitted to the terminal (default); json: every function's name, "
                                "arity, meaning, domain and whether the complex step works through it")
    _example_command(commands)
    _every_command(parser)
    return parser


def _every_command(parser):
    """What every command takes, added to each after they are built (whatever options each has)."""
    for command in disallow_abbreviations(parser)[1:]:
        command.add_argument("--show-config", action="store_true",
                             help="print the options in force -- from the command line, pyproject.toml's "
                                  "[tool.diffcompare] or the defaults -- and where each came from, then stop")


def _example_command(commands):
    """example: the examples the help names, from the installed package."""
    example = commands.add_parser("example", help="write one of the examples the help names (they ship with the "
                                                  "package)",
                                  description="Print or write the examples this help and the README name -- "
                                              "a suite for the audit and its functions, scripts -- from the "
                                              "installed package, so that they work after pip install.",
                                  epilog="examples:\n  diffcompare example --list\n"
                                         "  diffcompare example audit-suite --into audit/ && cd audit && "
                                         "diffcompare audit audit_suite.toml\n"
                                         "  diffcompare example backward-basics > backward_basics.py",
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    example.add_argument("name", metavar="NAME", nargs="?", help="the example (see --list)")
    example.add_argument("--list", action="store_true", help="list the examples and what each shows")
    example.add_argument("--into", metavar="DIR",
                         help="write every file of the example into DIR (made if missing; existing files are "
                              "never overwritten) instead of printing its first file")
    return example


def _compare_command(commands):
    """compare: every method on one function, at one point or many."""
    compare = commands.add_parser("compare", help="compare the methods on one expression at one point",
                                  description=texts.COMPARE_DESCRIPTION, epilog=texts.COMPARE_EPILOG,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    compare.add_argument("expression", metavar="EXPR", nargs="?",
                         help='the function: an expression, e.g. "sin(x)*exp(y)", or module:function, a Python '
                              'function imported from the current directory (as the audit does), or '
                              'path/to/file.py:function; - reads it '
                              'from standard input')
    compare.add_argument("--workload", metavar="NAME",
                         help="instead of EXPR and --at: a real AD workload, its objective and data — gmm, ba, ht, "
                              "lstm (ADBench's and GradBench's Gaussian mixture, bundle adjustment, hand tracking, "
                              "LSTM), lse (log-sum-exp), det (a determinant by minors); e.g. --workload gmm "
                              "--methods autograd,forward-mode,torch")
    compare.add_argument("--size", choices=("tiny", "small", "medium"), default="small",
                         help="the workload's size (default small; medium is ADBench's larger sizes)")
    compare.add_argument("--at", action="append", metavar="NAME=VALUE[,NAME=VALUE...]",
                         help="the point: a value for every variable (repeatable); vectors and matrices in "
                              "brackets: x=[1.2,1.2,1.2], A=[[2,1],[1,3]]")
    what = compare.add_argument_group("what to compute (default: the gradient of a scalar f, the Jacobian of a "
                                      "vector f such as [x*y, sin(x)*z])")
    what.add_argument("--vjp", metavar="V", help="the vector-Jacobian product vᵀJ with v = V (comma-separated, one "
                                                 "number per output): autograd's single backward(v)")
    what.add_argument("--jvp", metavar="V", help="the Jacobian-vector product Jv, the derivative along v = V "
                                                 "(one number per input)")
    what.add_argument("--order", type=int, choices=(1, 2), default=1,
                      help="2: the Hessian of a scalar f (double backward, SymPy's hessian, second differences)")
    what.add_argument("--kind", choices=("gradient", "jacobian", "vjp", "jvp", "hessian"),
                      help="name the quantity explicitly (--vjp, --jvp and --order 2 imply it)")
    many = compare.add_argument_group("many points (the report summarises the errors: max, median, worst point)")
    many.add_argument("--points", type=int, metavar="N", help="evaluate at N points in the --box")
    many.add_argument("--box", metavar="NAME=LOW:HIGH[,...]",
                      help="the region, e.g. x=-2:2,y=0.1:3; variables outside it keep their --at value")
    many.add_argument("--seed", type=int, default=0, metavar="S", help="random seed of the points (default 0)")
    many.add_argument("--grid", action="store_true",
                      help="a regular grid of about N points over the box instead of random points")
    compare.add_argument("--methods", metavar="LIST", help="comma-separated methods to run (default: all)")
    compare.add_argument("--gradient", metavar="MODULE:FUNCTION",
                         help="your own derivative (a hand-derived formula, another library's; module:function "
                              "or path/to/file.py:function), taking f's "
                              "arguments: judged beside the others as the method 'given'")
    compare.add_argument("--digits", type=int, default=30, metavar="N",
                         help="significant digits of the reference (default 30)")
    compare.add_argument("--repeat", type=int, default=5, metavar="N",
                         help="timing batches per method; the median is shown (default 5)")
    compare.add_argument("--step", type=float, metavar="H",
                         help="one finite-difference step for every scheme instead of each scheme's own")
    compare.add_argument("--symbolic-timeout", type=_seconds, default=10.0, metavar="S",
                         help="seconds allowed to SymPy's derivative, and again to the reference "
                              "(default 10; 0 or inf for no limit)")
    _report_arguments(compare, "report format (default text: a table in the terminal)")
    return compare


def _explain_command(commands):
    """explain: the backward pass node by node."""
    explain = commands.add_parser("explain", help="the backward pass step by step, node by node",
                                  description=texts.EXPLAIN_DESCRIPTION, epilog=texts.EXPLAIN_EPILOG,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    _expression_arguments(explain)
    explain.add_argument("--check", action="store_true",
                         help="check every node's backward rule against a reference and name the first wrong one")
    _report_arguments(explain, "text: a tree and a table in the terminal; markdown/latex: the walk as a table "
                               "for slides; json: every number; html: one self-contained page that steps through "
                               "the walk node by node (page.html#step=3 opens at step 3)")
    return explain


def _graph_command(commands):
    """graph: the backward graph as DOT, text, SVG, PNG, TikZ or JSON."""
    graph = commands.add_parser("graph", help="the backward graph as Graphviz DOT, text, SVG, PNG, TikZ or JSON",
                                description=texts.GRAPH_DESCRIPTION, epilog=texts.GRAPH_EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    _expression_arguments(graph)
    graph.add_argument("--format", choices=("dot", "text", "svg", "png", "latex", "json"),
                       help="default: dot, or what --output's extension says (.svg, .png, .dot, .txt, .tex, .json); "
                            "latex: a TikZ picture, no Graphviz needed; json: the nodes and edges with every number")
    graph.add_argument("--output", metavar="FILE", help="write to FILE instead of standard output")
    graph.add_argument("--check", action="store_true",
                       help="check every node's backward rule as explain --check does; the wrong one is drawn red")
    return graph


def _steps_command(commands):
    """steps: finite-difference error against the step."""
    steps = commands.add_parser("steps", help="finite-difference error against the step size (float64, float32)",
                                description=texts.STEPS_DESCRIPTION, epilog=texts.STEPS_EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    steps.add_argument("expression", metavar="EXPR", help='the function, e.g. "sin(x)*exp(y)"')
    steps.add_argument("--at", action="append", metavar="NAME=VALUE[,NAME=VALUE...]", required=True,
                       help="the point: a value for every variable (repeatable)")
    steps.add_argument("--var", metavar="NAME", help="the variable to differentiate by (needed when f has several)")
    steps.add_argument("--per-decade", type=int, default=1, metavar="K",
                       help="steps per decade of h (default 1: h = 1e-20, 1e-19, ..., 1e-1)")
    steps.add_argument("--h-range", default="1e-20..1e-1", metavar="LOW..HIGH",
                       help="the sweep's ends, powers of ten from 1e-30 to 1 (default 1e-20..1e-1)")
    steps.add_argument("--error", choices=("absolute", "relative"), default="absolute",
                       help="the error shown: |estimate - f'(x)| as the literature plots it (default), or that "
                            "over |f'(x)|; JSON carries both")
    steps.add_argument("--h-axis", choices=("increasing", "decreasing"), default="increasing",
                       help="h from left to right in the plot and down the table (default increasing, as in "
                            "Baydin et al.'s Figure 3)")
    steps.add_argument("--schemes", default="forward-difference,central-difference,five-point,complex-step",
                       metavar="LIST", help="the schemes swept, comma-separated (default: forward-difference,"
                                            "central-difference,five-point,complex-step)")
    steps.add_argument("--precision", default="float64,float32", metavar="LIST",
                       help="the precisions swept, comma-separated (default: float64,float32)")
    _report_arguments(steps, "text: tables and a character plot per precision", plot="the curves")
    return steps


def _swell_command(commands):
    """swell: expression swell as n grows."""
    swell = commands.add_parser("swell", help="expression swell: sizes and times of symbolic vs reverse mode as n grows",
                                description=texts.SWELL_DESCRIPTION, epilog=texts.SWELL_EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    swell.add_argument("family", metavar="FAMILY",
                       help="logistic, sines, nested-sin, rosenbrock, mlp or template")
    swell.add_argument("--n", default="1..8", metavar="RANGE", help="the values of n (default 1..8)")
    swell.add_argument("--template", metavar="EXPR", help="for the template family: the step, with y the previous iterate")
    swell.add_argument("--timeout", type=float, default=10.0, metavar="S",
                       help="seconds SymPy (and symbolic reverse mode, and SymEngine) get per n (default 10)")
    swell.add_argument("--symbolic-backend", choices=("sympy", "symengine"), default="sympy",
                       help="symengine: SymEngine differentiates and generates code too, timed beside SymPy "
                            "(needs the symengine extra; default sympy)")
    swell.add_argument("--expressions", type=int, default=0, metavar="N",
                       help="also show the expressions for n up to N (at most 8): f, SymPy's raw derivative, after "
                            "cse, f's program and symbolic reverse mode's (the lecture's table; default 0); for a "
                            "polynomial f (logistic) also Baydin et al.'s Table 1: f factored, the product rule, "
                            "the derivative simplified")
    swell.add_argument("--numbering", choices=("iterations", "paper"), default="iterations",
                       help="how n counts for the families that iterate a map from x (logistic, nested-sin, "
                            "template): iterations (default: n steps of the map, so n = 1 is 4x(1 - x)) or paper "
                            "(Baydin et al.'s Table 1: l_1 = x, row n is n - 1 steps)")
    _report_arguments(swell, "text: tables and a character plot", plot="sizes and times")
    return swell


def _lecture_command(commands):
    """lecture: a whole lecture on one function, as a deck or a notebook."""
    lecture = commands.add_parser("lecture", help="a whole lecture on one function: a beamer deck or a notebook",
                                  description=texts.LECTURE_DESCRIPTION, epilog=texts.LECTURE_EPILOG,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
    lecture.add_argument("expression", metavar="EXPR", help='the function, e.g. "sin(x)*x"; - reads it from '
                                                           'standard input')
    lecture.add_argument("--at", action="append", metavar="NAME=VALUE[,NAME=VALUE...]", required=True,
                         help="the point: one number for every variable (repeatable)")
    lecture.add_argument("--var", metavar="NAME",
                         help="the variable the one-variable slides follow (default: f's first)")
    lecture.add_argument("--format", choices=tuple(LECTURE_EXTENSIONS.values()), default=None,
                         help="latex: a beamer deck; notebook: a Jupyter notebook; json: the lecture's numbers "
                              "(default: latex, or what --output's extension says)")
    lecture.add_argument("--output", metavar="FILE",
                         help="write to FILE (.tex, .ipynb, .json) instead of standard output")
    return lecture


LECTURE_EXTENSIONS = {".tex": "latex", ".ipynb": "notebook", ".json": "json"}


def _audit_command(commands):
    """audit: a suite of cases at many points, for CI."""
    audit = commands.add_parser("audit", help="audit gradients: cases from a TOML suite, many points, CI reports",
                                description=texts.AUDIT_DESCRIPTION, epilog=texts.AUDIT_EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    audit.add_argument("suites", metavar="SUITE", nargs="*",
                       help="suite files (TOML, see above) and folders, searched for audit*.toml and *_audit.toml "
                            "files with [[case]] tables as the pytest plugin collects them; default: suites = [...] "
                            "under [tool.diffcompare.audit] in pyproject.toml")
    audit.add_argument("-k", dest="keyword", metavar="EXPR",
                       help="only the cases whose name or suite file's name matches EXPR, as pytest's -k: "
                            "substrings of names joined by and, or, not and parentheses (case ignored), "
                            "e.g. -k 'rosen or (swish and not float32)'")
    audit.add_argument("-x", "--exitfirst", action="store_true",
                       help="run the cases one after another and stop after the first wrong gradient")
    audit.add_argument("-q", "--quiet", action="count", default=0,
                       help="less output: only the cases that did not pass, and the exit status")
    audit.add_argument("-v", "--verbose", action="count", default=0,
                       help="more output: every finding at every point and all that user code printed")
    audit.add_argument("--points", type=int, metavar="N",
                       help="random points per case in its domain (default: the case's 'random', else 10)")
    audit.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the random points (default 0)")
    audit.add_argument("--no-adversarial", dest="adversarial", action="store_false",
                       help="only the explicit and random points")
    audit.add_argument("--engine", choices=("diffcompare", "torch"), default="diffcompare",
                       help="whose autograd is audited: diffcompare's engine (default) or PyTorch's "
                            f'({install_hint("torch")})')
    audit.add_argument("--jobs", type=int, default=1, metavar="N",
                       help="worker processes on this machine (default 1); user code always runs in a "
                            "supervised worker, so a crash or a hang ends its own case, not the audit")
    audit.add_argument("--timeout", type=_seconds, default=600.0, metavar="S",
                       help="seconds allowed to the whole audit; the cases whose points were not all checked "
                            "by then are undecided (exit 4) (default 600; 0 or inf for no limit)")
    audit.add_argument("--case-timeout", type=_seconds, default=300.0, metavar="S",
                       help="seconds allowed to each batch of a case's points (up to 256), after which its worker is "
                            "stopped and the case undecided (default 300; 0 or inf for no limit)")
    audit.add_argument("--scheduler", metavar="ADDRESS",
                       help=f'a Dask scheduler (tcp://host:8786) to run the cases on ({install_hint("dask")})')
    audit.add_argument("--report", action="append", metavar="FILE",
                       help="also write the report to FILE: .json, .md, .tex, .html or .xml (JUnit); repeatable")
    audit.add_argument("--format", choices=("text", "json", "markdown", "latex", "html", "junit"), default="text",
                       help="what to print (default: the rich summary)")
    return audit


def _seconds(text: str):
    """A time budget in seconds: a positive number, or 0 or inf for no limit (None)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds (say 10, 0.5, or 0 for no limit)")
    if value != value or value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds: give a positive number, "
                                         f"or 0 or inf for no limit")
    return None if value == 0 or value == float("inf") else value


def _report_arguments(command, format_help: str, plot: str | None = None):
    """--format, --output and (for reports with a picture) --plot, as the report commands take them."""
    command.add_argument("--format", choices=("text", "json", "markdown", "latex", "html"), default=None,
                         help=f"{format_help} (default: text, or what --output's extension says)")
    command.add_argument("--output", metavar="FILE",
                         help="write the report to FILE instead of the terminal, in the format its extension says "
                              "(.txt, .json, .md, .tex, .html) unless --format says otherwise")
    if plot:
        command.add_argument("--plot", metavar="FILE.png",
                             help=f'also draw {plot} to a PNG (needs matplotlib: {install_hint("plot")})')


def _expression_arguments(command):
    """EXPR, --at and --vjp, as every command on one expression at one point takes them."""
    command.add_argument("expression", metavar="EXPR",
                         help='the function: an expression, e.g. "sin(x)*exp(y)", or module:function, a Python '
                              'function imported from the current directory (as the audit does), or '
                              'path/to/file.py:function; - reads it '
                              'from standard input')
    command.add_argument("--at", action="append", metavar="NAME=VALUE[,NAME=VALUE...]", required=True,
                         help="the point: a value for every variable (repeatable); vectors in brackets: x=[2,3,4]")
    command.add_argument("--vjp", metavar="V", help="for a vector EXPR: the v of backward(v), one number per output")


def fail(command: str, message: str) -> int:
    """Say what was wrong in one line (control characters shown, never sent to the terminal:
    an expression holding ESC ] 0 ; ... BEL would retitle it); exit status 2."""
    print(f"diffcompare {command}: error: {visible(message)}", file=sys.stderr)
    return 2


def run_compare(args) -> int:
    from diffcompare.render import terminal
    from diffcompare.language.expression import ExpressionError
    from diffcompare.problem.errors import InputError

    try:
        if args.expression == "-":
            args.expression = _standard_input("compare")
        kind, vector = _what(args)
        function, point = _compared(args)
        from diffcompare.pipeline.compare import compare
        with terminal.progress_bar("comparing", "stages") as progress:
            comparison = compare(function, point, methods=args.methods, digits=args.digits,
                                 repeat=args.repeat, step=args.step,
                                 symbolic_timeout=args.symbolic_timeout,
                                 kind=kind, vector=vector, points=args.points, seed=args.seed, box=args.box,
                                 grid=args.grid, gradient=_gradient(args.gradient), progress=progress)
    except ExpressionError as error:
        return fail("compare", f"in EXPR: {error}")
    except InputError as error:
        return fail("compare", str(error))

    return _show(comparison, args, "compare")




def _compared(args):
    """(f, the point) of compare: EXPR at --at, or a named --workload with its data."""
    from diffcompare.problem.errors import InputError
    if args.workload is not None:
        if args.expression is not None or args.at or args.box:
            raise InputError("--workload brings its own function and point: give it without EXPR, --at or --box")
        from diffcompare.workloads.named import UnknownWorkload, workload_function
        try:
            function, point, _ = workload_function(args.workload, args.size, args.seed)
        except UnknownWorkload as error:
            raise InputError(f"--workload: {error}") from None
        return function, point
    if args.expression is None:
        raise InputError("give the function: EXPR (an expression or module:function), or --workload NAME")
    if not args.at and not args.box:
        raise InputError("give the point with --at NAME=VALUE (or a region with --box and --points)")
    return _function(args.expression), _point(args)


def _function(text):
    """EXPR as given: expression text, or the Python function ``module:function`` names,
    imported from the current directory first (as the audit imports a suite's functions)."""
    from diffcompare.auditing.suite import load_function, names_function
    if names_function(text):
        import os
        return load_function(text.strip(), os.getcwd())
    return text


def _standard_input(command) -> str:
    """EXPR given as -: the function read from standard input; InputError when it is closed,
    cannot be read or holds nothing."""
    from diffcompare.problem.errors import InputError
    example = f"echo 'sin(x)*y' | diffcompare {command} - --at x=1,y=2"
    try:
        text = sys.stdin.read() if sys.stdin is not None else None
    except (OSError, ValueError, UnicodeDecodeError) as error:
        raise InputError(f"EXPR is - (read it from standard input), but standard input cannot be read "
                         f"({getattr(error, 'strerror', None) or error}): give EXPR itself, or {example}") from None
    if text is None:
        raise InputError(f"EXPR is - (read it from standard input), but standard input is closed: give EXPR "
                         f"itself, or {example}")
    if not text.strip():
        raise InputError(f"EXPR is - (read it from standard input), but standard input is empty: give EXPR "
                         f"itself, or {example}")
    return text.strip()


def _gradient(text):
    """--gradient module:function: the user's own derivative, imported as EXPR's function is."""
    if text is None:
        return None
    from diffcompare.auditing.suite import load_function, names_function
    from diffcompare.problem.errors import InputError
    if not names_function(text):
        raise InputError(f"--gradient {text!r}: name a Python function as module:function or "
                         f"path/to/file.py:function, e.g. --gradient my_grads:rosenbrock_gradient")
    import os
    return load_function(text.strip(), os.getcwd())


OUTPUT_FORMATS = {".txt": "text", ".text": "text", ".json": "json", ".md": "markdown", ".markdown": "markdown",
                  ".tex": "latex", ".html": "html", ".htm": "html"}


def output_format(args) -> str:
    """The report's format: --format when given, else what --output's extension says, else text."""
    import os
    if args.format:
        return args.format
    output = getattr(args, "output", None)
    if not output:
        return "text"
    extension = os.path.splitext(output)[1].lower()
    if extension not in OUTPUT_FORMATS:
        from diffcompare.problem.errors import InputError
        raise InputError(f"--output {output}: the extension {extension or '(none)'} names no format; use "
                         f"{', '.join(OUTPUT_FORMATS)} or say it with --format")
    return OUTPUT_FORMATS[extension]


def _show(report, args, command) -> int:
    """Print ``report`` in its format (:func:`output_format`), or write it to args.output;
    its exit status."""
    from diffcompare.render import terminal
    from diffcompare.problem.errors import InputError
    try:
        format = output_format(args)
    except InputError as error:
        return fail(command, str(error))
    if getattr(args, "output", None):
        status = _write(args.output, report.render(format, width=terminal.pipe_width()), command)
        if status:
            return status
        print(f"wrote {args.output} ({format})", file=sys.stderr)
    elif format == "text" and terminal.is_terminal():
        report.print_report(terminal.console(highlight=False))          # the terminal's width, with colour
    elif format == "text":
        # a pipe or file: COLUMNS wide (80 when unset), no colour codes, no trailing spaces
        sys.stdout.write(report.render("text", width=terminal.pipe_width()))
    else:
        sys.stdout.write(report.render(format))
    return report.exit_status


def _write(path, content, command) -> int:
    """Write ``content`` to ``path`` whole or not at all (see render.files.write_whole)."""
    from diffcompare.render.files import write_whole
    try:
        write_whole(path, content)
    except OSError as error:
        return fail(command, f"cannot write {path}: {error.strerror or error}; nothing was written there")
    return 0


def _point(args) -> dict:
    """The --at values (repeatable) as one mapping; a name given twice is an error."""
    from diffcompare.problem.errors import InputError
    from diffcompare.problem.values import parse_point
    point = {}
    for text in args.at or ():
        for name, value in parse_point(text).items():
            if name in point:
                raise InputError(f"--at gives {name} twice")
            point[name] = value
    return point


def _build(command, build, where="EXPR"):
    """(report, None) from ``build()``, or (None, exit status 2) after printing what was wrong."""
    from diffcompare.language.expression import ExpressionError
    from diffcompare.problem.errors import InputError
    try:
        return build(), None
    except ExpressionError as error:
        return None, fail(command, f"in {where}: {error}")
    except InputError as error:
        return None, fail(command, str(error))


def _explanation(args, command):
    if args.expression == "-":
        from diffcompare.problem.errors import InputError
        try:
            args.expression = _standard_input(command)
        except InputError as error:
            return None, fail(command, str(error))

    def build():
        from diffcompare.lecture.explain import explain
        return explain(_function(args.expression), _point(args), vector=args.vjp, check=getattr(args, "check", False),
                       label=args.expression.strip())
    return _build(command, build)


def _show_and_plot(report, args, command, draw_png) -> int:
    """Show the report; with --plot, also draw it to a PNG."""
    status = _show(report, args, command)
    if args.plot and not status:
        status = _plot(lambda: draw_png(report, args.plot), args.plot, command)
    return status


def run_explain(args) -> int:
    explanation, status = _explanation(args, "explain")
    return status if explanation is None else _show(explanation, args, "explain")


def run_audit(args) -> int:
    from diffcompare.render import terminal
    import os

    from diffcompare.problem.errors import InputError
    reports = []
    for path in args.report or ():
        extension = os.path.splitext(path)[1].lower()
        if extension not in REPORT_FORMATS:
            return fail("audit", f"--report {path}: the extension says the format; use .json, .md, .html or .xml (JUnit)")
        reports.append((path, REPORT_FORMATS[extension]))
    try:
        paths, cases, among = _audited(args)
    except InputError as error:
        return fail("audit", str(error))
    if not cases:
        print(f"diffcompare audit: -k {args.keyword!r} selects none of the {among} cases in {', '.join(paths)}: "
              f"nothing was checked (exit status 5)", file=sys.stderr)
        return 5
    import signal

    def terminate(signum, frame):       # SIGTERM ends the audit as Ctrl-C does: the report of what is done
        raise KeyboardInterrupt
    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        from diffcompare.auditing.audit import run_cases
        with terminal.progress_bar("auditing", "batches") as progress:
            report = run_cases(cases, points=args.points, seed=args.seed, engine=args.engine, jobs=args.jobs,
                               scheduler=args.scheduler, adversarial=args.adversarial, progress=progress,
                               timeout=args.timeout, isolate=True, case_timeout=args.case_timeout,
                               exitfirst=args.exitfirst)
        inputs = {"suite": paths[0]} if len(paths) == 1 else {"suites": paths}
        if args.keyword:
            inputs["keyword"] = args.keyword
        report.settings = {**inputs, **report.settings}      # the command's inputs, for the JSON
        report.verbosity = args.verbose - args.quiet
    except InputError as error:
        return fail("audit", str(error))
    finally:
        signal.signal(signal.SIGTERM, previous)
    if report.interrupted:
        written = [path for path, format in reports if not _write(path, report.render(format), "audit")]
        done = sum(1 for c in report.cases if c.status != "undecided" or c.points)
        print(f"diffcompare audit: interrupted after {done} of {len(report.cases)} cases"
              + (f"; the partial report is in {', '.join(written)}" if written else ""), file=sys.stderr)
        return 130
    unwritten = 0
    for path, format in reports:            # every report that can be written is, whatever the others do
        if _write(path, report.render(format), "audit"):
            unwritten += 1
        else:
            print(f"wrote {path} ({format})", file=sys.stderr)
    status = _show(report, args, "audit")
    if len(report.cases) < len(cases):
        print(f"diffcompare audit: stopped after the first wrong gradient (-x): {len(cases) - len(report.cases)} "
              f"of {len(cases)} cases not run", file=sys.stderr)
    # a wrong gradient (1) says more than a report that could not be written (2)
    return status if status == 1 or not unwritten else 2


def _audited(args):
    """(the suite paths, the cases -k selects from them, how many cases they hold): the
    suites and folders given, else pyproject.toml's (its paths start at its folder)."""
    import os

    from diffcompare.auditing.collect import collect
    from diffcompare.auditing.keywords import compile_keywords
    from diffcompare.auditing.suite import read_suite
    from diffcompare.cli.config import COMMAND_LINE, DEFAULT
    from diffcompare.problem.errors import InputError
    selects = compile_keywords(args.keyword or "")
    paths = list(args.suites or ())
    configuration = getattr(args, "configuration", None)
    if configuration is not None and configuration.source("suites") not in (COMMAND_LINE, DEFAULT):
        paths = [os.path.relpath(os.path.join(configuration.folder(), p)) for p in paths]
    if not paths:
        raise InputError("give the suites to audit -- SUITE.toml files or folders holding them (diffcompare audit "
                         "tests/) -- or set them in pyproject.toml: [tool.diffcompare.audit] suites = [\"tests/\"]")
    files, missing = collect(paths)
    if missing:
        import errno
        raise InputError(f"cannot read the suite {missing[0]}: {os.strerror(errno.ENOENT)}")
    if not files:
        raise InputError(f"no suite in {', '.join(paths)}: a folder's suites are TOML files named audit*.toml or "
                         f"*_audit.toml holding [[case]] tables")
    cases, among = [], 0
    for path in files:
        suite = read_suite(path)
        among += len(suite.cases)
        for case in suite.cases:
            if selects([case.name, os.path.basename(path)]):
                if len(files) > 1:          # two suites may each have a "rosenbrock": named as pytest names them
                    case.name = f"{path}::{case.name}"
                cases.append(case)
    return files, cases, among


def run_steps(args) -> int:
    from diffcompare.render import terminal
    def build():
        from diffcompare.lecture.steps import step_sweep
        with terminal.progress_bar("sweeping", "curves") as progress:
            return step_sweep(args.expression, _point(args), variable=args.var, per_decade=args.per_decade,
                              label=args.expression.strip(), progress=progress, h_range=args.h_range,
                              measure=args.error, axis=args.h_axis, schemes=args.schemes,
                              precisions=args.precision)
    sweep, status = _build("steps", build)
    if sweep is None:
        return status
    from diffcompare.render.plots import steps_png
    return _show_and_plot(sweep, args, "steps", steps_png)


def run_lecture(args) -> int:
    import os

    from diffcompare.render import terminal
    form = args.format
    if form is None and args.output:
        extension = os.path.splitext(args.output)[1].lower()
        if extension not in LECTURE_EXTENSIONS:
            return fail("lecture", f"--output {args.output}: the extension {extension or '(none)'} names no format; "
                                   f"use {', '.join(LECTURE_EXTENSIONS)} or say it with --format")
        form = LECTURE_EXTENSIONS[extension]
    form = form or "latex"
    if args.expression == "-":
        args.expression = sys.stdin.read().strip()

    def build():
        from diffcompare.lecture.lecture import lecture
        with terminal.progress_bar("preparing the lecture", "parts") as progress:
            return lecture(args.expression, _point(args), variable=args.var, progress=progress)
    report, status = _build("lecture", build)
    if report is None:
        return status
    content = report.render(form)
    if args.output:
        status = _write(args.output, content, "lecture")
        if status:
            return status
        print(f"wrote {args.output} ({form})", file=sys.stderr)
    else:
        sys.stdout.write(content)
    return report.exit_status


def run_swell(args) -> int:
    from diffcompare.render import terminal
    if args.timeout <= 0:
        return fail("swell", f"--timeout must be a positive number of seconds, not {args.timeout:g}")

    def build():
        from diffcompare.lecture.swell import swell
        with terminal.progress_bar("measuring swell", "values of n") as progress:
            return swell(args.family, args.n, template=args.template, timeout=args.timeout,
                         symbolic_backend=args.symbolic_backend, expressions=args.expressions, progress=progress,
                         numbering=args.numbering)
    report, status = _build("swell", build, where="--template")
    if report is None:
        return status
    from diffcompare.render.plots import swell_png
    return _show_and_plot(report, args, "swell", swell_png)


def _plot(draw, path, command) -> int:
    from diffcompare.render.plots import PlotUnavailable
    try:
        draw()
    except PlotUnavailable as error:
        return fail(command, str(error))
    print(f"wrote {path} (png)", file=sys.stderr)
    return 0


GRAPH_EXTENSIONS = {".dot": "dot", ".gv": "dot", ".txt": "text", ".svg": "svg", ".png": "png", ".tex": "latex",
                    ".json": "json"}


def run_graph(args) -> int:
    from diffcompare.render import terminal
    import os

    form = args.format
    if form is None:
        extension = os.path.splitext(args.output or "")[1].lower()
        if args.output and extension not in GRAPH_EXTENSIONS:
            return fail("graph", f"cannot tell the format from {args.output!r}: give --format "
                                 f"(dot, text, svg, png, latex, json) or a file ending in {', '.join(GRAPH_EXTENSIONS)}")
        form = GRAPH_EXTENSIONS.get(extension, "dot")
    explanation, status = _explanation(args, "graph")
    if explanation is None:
        return status
    from diffcompare.render.explain import check_summary, plain_tree
    from diffcompare.render.graph import OWN_DRAWING, dot, draw, json_text, latex_report, own_svg, print_tree

    if form == "json":
        content = json_text(explanation)
    elif form in ("svg", "png"):
        content, problem = draw(explanation, form)
        if content is None and form == "svg":
            content = own_svg(explanation)
            print(f"note: {problem}: {OWN_DRAWING}", file=sys.stderr)
        if content is None:
            sys.stdout.write(plain_tree(explanation, terminal.text_width()))
            return fail("graph", f"cannot draw {form.upper()}: {problem}. The graph as text is above; "
                                 "--format dot gives DOT text for any Graphviz viewer")
        if not args.output:
            return fail("graph", f"{form.upper()} is binary: give --output FILE")
    elif form == "text" and not args.output and sys.stdout.isatty():
        content = None
        print_tree(explanation, terminal.console(highlight=False), terminal.text_width())
    elif form == "latex":
        content = latex_report(explanation)
    else:
        content = dot(explanation) if form == "dot" else plain_tree(explanation, None if args.output else
                                                                   terminal.text_width())
    if args.output:
        status = _write(args.output, content, "graph")
        if status:
            return status
        print(f"wrote {args.output} ({form})", file=sys.stderr)
    elif content is not None:
        sys.stdout.write(content)
    if explanation.checked:             # what --check found, beside the drawing (stdout holds only the graph)
        print(visible(check_summary(explanation)), file=sys.stderr)
    return explanation.exit_status


def _what(args):
    """(kind, vector) from --kind, --vjp, --jvp and --order, checked for conflicts."""
    from diffcompare.problem.errors import InputError
    chosen = [name for name, given in (("--vjp", args.vjp), ("--jvp", args.jvp), ("--order 2", args.order == 2))
              if given]
    if len(chosen) > 1:
        raise InputError(f"{' and '.join(chosen)} ask for different things: give one of them")
    implied = {"--vjp": "vjp", "--jvp": "jvp", "--order 2": "hessian"}.get(chosen[0]) if chosen else None
    if args.kind and implied and args.kind != implied:
        raise InputError(f"--kind {args.kind} contradicts {chosen[0]}")
    if args.kind in ("vjp", "jvp") and not implied:
        raise InputError(f"--kind {args.kind} needs the vector: give it with --{args.kind} V")
    return args.kind or implied, args.vjp or args.jvp


def run_functions(args) -> int:
    if args.format == "json":
        from diffcompare.render.functions import json_text
        sys.stdout.write(json_text())
        return 0
    from diffcompare.render import terminal
    terminal.print_functions()
    return 0


def run_example(args) -> int:
    from diffcompare.problem.errors import InputError
    from diffcompare.render import examples
    if args.list or args.name is None:
        if args.into:
            return fail("example", "--into needs the example's NAME (diffcompare example --list names them)")
        from diffcompare.render import terminal
        sys.stdout.write(examples.listing(terminal.text_width()))
        return 0
    try:
        example = examples.find(args.name)
        if args.into:
            for path in examples.write_into(example, args.into):
                print(f"wrote {path}", file=sys.stderr)
            return 0
    except InputError as error:
        return fail("example", str(error))
    except OSError as error:
        return fail("example", f"cannot write into {args.into}: {error.strerror or error}")
    first, *others = example["files"]
    sys.stdout.write(examples.text(first))
    if others:
        print(f"note: {first} uses {', '.join(others)}: diffcompare example {args.name} --into DIR writes "
              f"{'them' if len(others) > 1 else 'it'} too", file=sys.stderr)
    return 0


def protect_expressions(argv, parser):
    """An expression may start with a minus ("-x**2"); argparse would take it for an
    option. A leading space keeps it an argument (the expression parser ignores spaces).
    Option values stay as they are."""
    options = set()
    for action in parser.expression_parsers[argv[0]]._actions:
        options.update(action.option_strings)
    out = list(argv)
    for i, arg in enumerate(out):
        looks_like_option = re.fullmatch(r"--[A-Za-z][A-Za-z0-9-]*(=.*)?", arg) is not None
        if arg.startswith("-") and arg != "-" and arg.split("=")[0] not in options and not looks_like_option:
            previous = out[i - 1] if i else ""
            if previous not in options or previous in ("-h", "--help"):
                out[i] = " " + arg
    return out


def _silence_stdout():
    """Point standard output at /dev/null, so that Python's flush at exit cannot fail again."""
    import os
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def main(argv=None) -> int:
    from diffcompare.problem.vocabulary import COMMAND_LINE, SPELLING
    token = SPELLING.set(COMMAND_LINE)         # errors name --options, not Python's arguments
    try:
        return _main(argv)
    finally:
        SPELLING.reset(token)


def _note(command):
    """showwarning for a command: a renamed spelling is a note on standard error, in one line."""
    def show(message, category, filename, lineno, file=None, line=None):
        print(f"diffcompare {command}: note: {visible(str(message))}", file=sys.stderr)
    return show


def _main(argv) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] and argv[0] in parser.expression_parsers:
        argv = protect_expressions(argv, parser)
    configuration = None
    commands = parser.commands()
    if argv[:1] and argv[0] in commands and not {"-h", "--help"} & set(argv[1:]):
        # pyproject.toml's [tool.diffcompare] (not read for --help, which must answer whatever it says)
        import os

        from diffcompare.cli.config import Configuration
        from diffcompare.problem.errors import InputError
        try:
            configuration = Configuration(argv[0], commands, os.getcwd())
        except InputError as error:
            return fail(argv[0], str(error))
    args = parser.parse_args(argv)
    args.configuration = configuration
    if configuration is not None:
        configuration.apply(args, argv[1:])
        if args.show_config:
            from diffcompare.render.config import config_text
            sys.stdout.write(config_text(args.command, configuration.rows(args)))
            return 0
    runners = {"compare": run_compare, "functions": run_functions, "explain": run_explain, "graph": run_graph,
               "steps": run_steps, "swell": run_swell, "audit": run_audit, "lecture": run_lecture,
               "example": run_example}
    try:
        if args.command in runners:
            import warnings

            from diffcompare.cli.allocator import keep_freed_memory
            keep_freed_memory()
            from diffcompare.problem.vocabulary import RenamedWarning
            with warnings.catch_warnings():
                # the reports say what went wrong (nan, overflow, a time-out) in their own words;
                # NumPy's and SymPy's warnings would only repeat it, out of place. An old spelling
                # (--methods central) is said once, as a note naming the new one.
                warnings.simplefilter("ignore")
                warnings.simplefilter("default", RenamedWarning)
                warnings.showwarning = _note(args.command)
                code = runners[args.command](args)
            sys.stdout.flush()      # a report still in the buffer meets a closed pipe here, not at exit
            return code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # the reader went away (| head): nothing more can be said on standard output
        _silence_stdout()
        print("diffcompare: standard output was closed before the report was written", file=sys.stderr)
        return 2
    except OSError as error:        # standard output on a full device, say
        _silence_stdout()
        print(f"diffcompare: cannot write the report: {error.strerror or error}", file=sys.stderr)
        return 2
    except Exception as error:      # a bug: say so in one line rather than a traceback
        print(f"diffcompare: internal error: {type(error).__name__}: {error} (please report it)", file=sys.stderr)
        return 3
    parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
