"""The command line's help texts: what each command does, with examples. Kept apart from
the parser so that the code that parses and dispatches stays short."""

DESCRIPTION = """\
Differentiate a function three ways side by side -- reverse-mode automatic
differentiation (diffcompare's own PyTorch-like engine), symbolic differentiation
(SymPy) and finite differences -- and see each method's value, its error against an
exact high-precision reference, whether the methods agree, and what each cost.
"""

EPILOG = """\
examples:
  diffcompare compare "exp(x)/sqrt(sin(x)**3 + cos(x)**3)" --at x=1.5
  diffcompare compare "sin(x)*exp(y) + log(1 + z**2)" --at x=1,y=0.5,z=2 --format json
  diffcompare explain "sin(x)*x" --at x=2          # backward() node by node
  diffcompare graph "sin(x)*x" --at x=2 --output g.svg
  diffcompare steps "exp(x)/sqrt(sin(x)**3 + cos(x)**3)" --at x=1.5
  diffcompare swell logistic --n 1..12
  diffcompare lecture "sin(x)*x" --at x=2 --output lecture.tex   # a whole beamer deck
  diffcompare audit examples/audit_suite.toml      # is each gradient right? CI reports
  diffcompare functions            # what the expression language knows

The engine is usable from Python too:

  from diffcompare import autograd as ag
  x = ag.tensor([2.0, 3.0, 4.0], requires_grad=True)
  y = x ** 2
  y.backward(ag.tensor([1.0, 0.1, 0.01]))   # the vector-Jacobian product v^T J
  print(x.grad)                              # tensor([4.0000, 0.6000, 0.0800])

Runnable examples live in examples/ (python examples/backward_basics.py).
"""

COMPARE_DESCRIPTION = """\
Differentiate EXPR by reverse-mode AD (autograd), SymPy (symbolic) and finite
differences, and measure each against SymPy's exact derivative evaluated by mpmath at
the exact binary64 point (the float nearest to 0.1, not 1/10). The gradient by default;
the Jacobian of a vector f; vᵀJ, Jv or the Hessian on request; at one point or many.

Each row shows the value, absolute and relative error, correct digits, the distance in
ULPs from the correctly rounded reference, function evaluations, time per gradient
(median of repeated runs; one-off setup apart) and a verdict against the accuracy that
method can be expected to reach here: a few ULPs times the conditioning for the exact
methods, truncation plus rounding for each finite-difference scheme.
"""

COMPARE_EPILOG = """\
examples:
  diffcompare compare "exp(x)/sqrt(sin(x)**3 + cos(x)**3)" --at x=1.5
  diffcompare compare "sin(x)*exp(y) + log(1 + z**2)" --at x=1,y=0.5,z=2 --format json
  diffcompare compare "abs(x) + relu(y)" --at x=0,y=0 --methods autograd,forward,backward
  diffcompare compare "[x*y, sin(x)*z, exp(y)]" --at x=1,y=2,z=3 --vjp 0.1,1.0,0.0001
  diffcompare compare "sum(100*(x[1:]-x[:-1]**2)**2 + (1-x[:-1])**2)" --at x=[1.2,1.2,1.2] --order 2
  diffcompare compare "sin(x)*exp(y)" --box x=-2:2,y=0.1:3 --points 100000 --seed 1

the expression language:
  numbers (2, 1.5, 1e-3), variables, + - * / ** (or ^), unary minus, parentheses,
  pi, e, and the functions listed by `diffcompare functions` (sin, exp, log1p,
  sigmoid, atan2, hypot, min, max, ...); vectors [a, b], subscripts x[0], x[1:],
  A[0, 1], the matrix product @, sum, prod, mean, dot, norm. Nothing is ever passed
  to eval.

methods (--methods, comma-separated; default all):
  autograd      the engine: one forward pass, one backward()  (reverse mode)
  forward-mode  the engine's forward_ad: one forward pass per input, each
                carrying a tangent (a column of J); asked for by name for a
                gradient, in the default set for the other tasks
  symbolic      sympy.diff, then lambdify(..., cse=True) to NumPy
  symbolic-reverse  the engine's reverse sweep run on SymPy expressions: the
                derivative as a straight-line program that grows as f's does
                (asked for by name; its size beside SymPy's)
  torch         PyTorch's torch.autograd on the same f (asked for by name; needs
                PyTorch: pip install "torch>=2.13", or .[torch] from the checkout)
  jax, jax-jit  JAX's grad/jacrev/hessian/vjp/jvp on the same f, eager or compiled
                by jax.jit (asked for by name; pip install "jax>=0.4.30")
  given         your own derivative, --gradient module:function: called with f's
                arguments, it returns the gradient (a tuple of partials or one
                array; the Jacobian for --jacobian, --vjp, --jvp; the Hessian)
  forward       (f(x+h) - f(x)) / h               h ~ sqrt(eps) max(1,|x|)
  backward      (f(x) - f(x-h)) / h               h ~ sqrt(eps) max(1,|x|)
  central       (f(x+h) - f(x-h)) / 2h            h ~ eps^(1/3) max(1,|x|)
  five-point    4th-order central stencil         h ~ eps^(1/5) max(1,|x|)
  complex-step  Im f(x+ih) / h                    h = 1e-20 max(1,|x|)
  richardson    central differences at h, h/2, h/4 extrapolated to h -> 0
  for a Jacobian, vjp or jvp also: autograd-functional (ag.functional.jacobian/jvp),
  autograd-full-J (vjp: J by one backward per output, then v^T J); for a Hessian:
  autograd (double backward), forward-mode (forward over reverse), autograd-functional,
  symbolic, second-differences, mixed (central differences of the engine's gradient)

verdicts: pass (within the expected accuracy), fail (outside it), inconclusive (the
band is as large as the value: right and wrong look alike), not judged (a kink, f
undefined here, a stencil across a singularity, no reference), or the method's own
status (timed out, not applicable, failed).

exit status: 0 every method that applies was judged and passed; 1 one failed; 4 nothing
failed but something could not be decided (inconclusive, not judged, timed out); 2 bad
input; 3 an internal error.
"""

FUNCTIONS_DESCRIPTION = "List every function and constant the expression language knows."

EXPLAIN_DESCRIPTION = """\
Show what backward() does, node by node. First the graph the engine recorded for EXPR
at the point (grad_fn names as PyTorch prints them: MulBackward0, AccumulateGrad, ...)
with each node's value; then the backward pass in the order the engine runs it: the
gradient arriving at each node (its adjoint, summed when a value is used twice), the
node's local derivative as SymPy writes it, and the vector-Jacobian product it sends to
each input. It ends with the gradient beside SymPy's derivative and its value.

For a vector EXPR give v with --vjp: the walk carries the vector vᵀJ backward and
never forms J -- that is what y.backward(v) computes.
"""

EXPLAIN_EPILOG = """\
examples:
  diffcompare explain "sin(x)*x" --at x=2
  diffcompare explain "[x*y, sin(x)*z, exp(y)]" --at x=1,y=2,z=3 --vjp 0.1,1.0,0.0001
  diffcompare explain "exp(x)/sqrt(sin(x)**3 + cos(x)**3)" --at x=1.5 --format markdown
  diffcompare explain "sum(x**2)" --at x=[2,3,4] --check

--check compares every node's backward rule with a reference: SymPy's derivative of the
function the node computes, or Richardson differences of the node's own forward. The
first node whose rule disagrees is named (exit status 1). In Python the same check finds
a wrong custom ag.Function:  diffcompare.explain(f, at={"x": 0.5}, check=True).first_wrong

exit status: 0 explained (and, with --check, every rule agrees), 1 a backward rule is
wrong, 4 with --check, no rule disagrees but a node could not be checked (a kink, where
the conventions differ; a forward that cannot be replayed), 2 bad input.
"""

GRAPH_DESCRIPTION = """\
The backward graph of EXPR at the point as Graphviz DOT text (always available), as
plain text, or drawn to SVG/PNG when the graphviz Python package and its `dot` program
are installed (pip install "graphviz>=0.20" and your system's graphviz); without them an
SVG is drawn by diffcompare's own layout. Each node shows its op, value and gradient;
leaves are filled boxes; edges point the way gradients flow and carry what is sent.
"""

STEPS_DESCRIPTION = """\
The finite-difference error against the step size, h = 1e-20 ... 1e-1 (--h-range), for
forward, central, five-point and complex-step differences in float64 and float32: the
V-shaped curves of truncation error (falling with h) against round-off error (rising as
h shrinks). The error is absolute by default, as the literature plots it (--error
relative for |error| / |f'(x)|; JSON carries both), with h increasing from left to right
(--h-axis decreasing to turn it round). Each scheme's best h is set beside the optimum
its error model predicts from f and its derivatives at the point, beside its crossover
h× (truncation error dominates above it, round-off error below) and beside the rules of
thumb sqrt(eps), eps^(1/3), eps^(1/5). The complex step has no subtraction, so no
round-off wall. float32 is computed as plain NumPy float32 code computes it.

The float32 columns show why gradient checks fail in single precision: the best any
difference can do there is about 1e-4, and at gradcheck's h = 1e-6 far worse.

At a kink, an infinite slope or outside f's domain there is no derivative to measure
against: steps says what the judge found there and exits 4, as compare does.
"""

STEPS_EPILOG = """\
examples:
  diffcompare steps "exp(x)/sqrt(sin(x)**3 + cos(x)**3)" --at x=1.5
  diffcompare steps "sin(x)*exp(y)" --at x=1,y=0.5 --var y --per-decade 4
  diffcompare steps "exp(x)/sqrt(sin(x)**3 + cos(x)**3)" --at x=1.5 --plot steps.png

  Baydin et al. (2018), Figure 3: forward and centre differences of the logistic map's l4:
  diffcompare steps "64*x*(1-x)*(1-2*x)**2*(1-8*x+8*x**2)**2" --at x=0.2 --schemes forward,central --precision float64 --h-range 1e-16..1e-1

  Squire and Trapp (1998): the complex step against forward and central differences:
  diffcompare steps "exp(x)/sqrt(sin(x)**3 + cos(x)**3)" --at x=1.5 --schemes forward,central,complex-step --precision float64
"""

SWELL_DESCRIPTION = """\
Expression swell, measured. For a family of functions f_n and each n: the size of f,
of SymPy's raw derivative, of the derivative after common-subexpression elimination
(cse), of the derivative by symbolic reverse mode, and of the engine's recorded graph;
and the time of each phase (sympy.diff, cse + lambdify, symbolic reverse mode's trace
and sweep, one call of the generated code, the engine's forward and backward pass).
Raw symbolic derivatives grow much faster than f; cse tames them but does not bound
them; reverse mode stays within a small constant of f. Symbolic reverse mode runs the
reverse sweep on SymPy expressions, every intermediate a symbol of its own: a symbolic
derivative that grows as f's own program does.

families:
  logistic     the logistic map's n-th iterate, l_{k+1} = 4 l_k (1 - l_k)
  sines        sin(x1) * sin(x2) * ... * sin(xn), gradient in n variables
  nested-sin   sin(sin(...sin(x)...)), n times
  rosenbrock   the n-dimensional Rosenbrock function, gradient in n variables
  mlp          a tanh MLP on a scalar input, n layers of width 3 (fixed weights)
  template     your own: --template EXPR iterated n times, y the previous iterate
               (y starts as x), e.g. --template "sin(y) * x + y"
"""

SWELL_EPILOG = """\
examples:
  diffcompare swell logistic --n 1..12
  diffcompare swell mlp --n 1..6 --format markdown
  diffcompare swell nested-sin --n 1..256..x2 --plot swell.png
  diffcompare swell template --template "sin(y) * x + y" --n 1..8
  diffcompare swell logistic --n 1..12 --symbolic-backend symengine
  diffcompare swell logistic --numbering paper --n 1..4 --expressions 4 --format latex
      Baydin et al., "Automatic differentiation in machine learning: a survey" (JMLR 18(153), 2018),
      Table 1 as printed (l_1 = x; l_n factored, its raw derivative, the derivative simplified) and
      symbolic reverse mode's straight-line programs beside it; every LaTeX fragment fits a 16:9
      beamer frame and a 10-pt article page (it names the packages it needs in its first lines)

--n takes a range (1..12), a range with a step (2..20..2), a doubling range (1..256..x2)
or a list (1,2,4,8). SymPy gets --timeout seconds per n; once it runs out, larger n are
measured without it (symbolic reverse mode and SymEngine have the same budget each).
--symbolic-backend symengine adds SymEngine's diff and Lambdify times beside SymPy's
(pip install "symengine>=0.11"); the sizes stay SymPy's count_ops.
"""

GRAPH_EPILOG = """\
examples:
  diffcompare graph "sin(x)*x" --at x=2                  # DOT text on stdout
  diffcompare graph "sin(x)*x" --at x=2 | dot -Tsvg > g.svg
  diffcompare graph "sin(x)*x" --at x=2 --output g.png   # needs graphviz
  diffcompare graph "sin(x)*x" --at x=2 --format text
  diffcompare graph my_ops:f --at x=0.7 --check --output g.svg

--check checks every node's backward rule as explain --check does and draws the node
whose rule is wrong in red (marked in the text tree); what it found is said on stderr.

exit status: 0 drawn (and, with --check, every rule agrees), 1 a backward rule is wrong,
4 with --check, no rule disagrees but a node could not be checked, 2 bad input or a
drawing Graphviz cannot make.
"""

AUDIT_DESCRIPTION = """\
Audit gradients: is autograd right, at every point that matters? For each case of
SUITE (a TOML file) and each point -- the case's explicit points, --points random ones
in its domain, and adversarial ones the audit adds (0, ±1, tiny values, the domain's
edges, the kinks of abs, relu, max, min, clamp, sqrt, ...) -- three comparisons:

  autograd vs the exact reference   the verdict on the gradient, within a tolerance
                                    derived from the dtype's ε (or the case's own)
  FD vs the exact reference         were gradcheck's finite differences trustworthy
                                    here? if not, why: float32 rounding, cancellation,
                                    a kink inside the stencil, truncation
  autograd vs FD                    what a plain gradcheck would have said

so that the report says "autograd is wrong at x=...", "FD is unreliable here", or
"all agree"; a wrong gradient names the node whose backward rule is wrong.

A suite file:

  [defaults]
  random = 20                       # random points per case (--points overrides)

  [[case]]
  name = "rosenbrock"
  expression = "100*(y - x**2)**2 + (1 - x)**2"
  domain = { x = [-2, 2], y = [-1, 3] }
  at = [{ x = 1, y = 1 }]           # explicit points (optional)

  [[case]]
  name = "my op"
  function = "my_ops:layer"         # module:function, imported from the suite's folder;
  domain = { x = [-3, 3] }          # written with diffcompare.language.functions, or an
  check = "gradient"                # ag.Function subclass with its own backward
  dtype = "float32"                 # gradient, jacobian or hessian; float64 or float32
  tolerance = { rtol = 1e-5 }       # autograd vs exact (default: 128 ε of the dtype)
  reference = "x * sigmoid(x)"      # the exact formula, when SymPy cannot trace f
"""

AUDIT_EPILOG = """\
examples:
  diffcompare audit examples/audit_suite.toml
  diffcompare audit examples/audit_suite.toml --points 100 --seed 1 --jobs 2
  diffcompare audit suite.toml --report audit.xml --report audit.json   # JUnit for CI, and JSON
  diffcompare audit suite.toml --engine torch       # PyTorch's autograd under audit
  diffcompare audit suite.toml --scheduler tcp://10.0.0.5:8786          # a Dask cluster
  diffcompare audit tests/ -k "rosen or (swish and not float32)" -x     # the suites under tests/,
                                                      # some cases, stop at the first wrong gradient
  diffcompare audit                   # the suites of [tool.diffcompare.audit] suites = [...] in pyproject.toml

reports (--report FILE, by its extension): .json (report "audit", schema_version 2),
.md (Markdown), .html (a page: the table of cases, then each case), .xml (JUnit: one
testcase per case; a wrong gradient is a failure with the worst point and every method's
values; a case that cannot run is an error). What
user code prints goes into the report with its case, not onto the audit's output.

user code that misbehaves ends its own case, never the audit: a crash (a segmentation
fault, an abort, os._exit, the out-of-memory killer) or an exception is an error naming
its cause and line; a hang is stopped at --case-timeout (undecided); children it forks
are ended with its worker. The suite's modules come from the suite's own folder, and
never in place of the standard library's or diffcompare's.

exit status: 0 every gradient is right at every point asked for; 1 a gradient is
wrong; 4 nothing is wrong, but a point asked for (explicit or random) could not be
checked against the exact reference (a kink, undefined there, no reference: the case is
"undecided"; the adversarial and kink points the audit adds itself do not count); 2 bad
input (the suite cannot be read, or a case names an unknown function, a module that
fails to import, a function that crashes, ...: each bad case is reported and the
others still run); 3 an internal error of diffcompare's; 5 -k selected no case: nothing
was checked; 130 interrupted (Ctrl-C, SIGTERM): the cases checked so far are reported, the
others undecided. Several: 1 before 3, 3 before 2, 2 before 4.
"""

LECTURE_DESCRIPTION = """\
A whole lecture on your function, as a beamer deck (LaTeX) or a Jupyter notebook: the
graph autograd records, the forward and the backward pass node by node, backward(v) as
a vector-Jacobian product, retain_graph and create_graph, forward against reverse mode
with what each costs, finite-difference error against the step h, expression swell
against symbolic reverse mode, and every method side by side with its verdict.

Every number on the slides is computed for f at the point: the engine's gradients against
SymPy's exact derivatives (mpmath, 30 digits), the timings measured on this machine.
The deck needs only pdflatex with beamer, booktabs, TikZ and pgfplots (TeX Live's
texlive-latex-recommended and texlive-pictures).

The exit status is the comparison's: 0 when every method passed, 1 when one is outside
its expected accuracy, 4 when something could not be judged (a kink, say)."""

LECTURE_EPILOG = """\
examples:
  diffcompare lecture "exp(x)/sqrt(sin(x)**3 + cos(x)**3)" --at x=1.5 --output lecture.tex
  pdflatex lecture.tex                       # lecture.pdf, 16:9 slides
  diffcompare lecture "sin(x)*exp(y)" --at x=1,y=0.5 --var y --output lecture.ipynb"""
