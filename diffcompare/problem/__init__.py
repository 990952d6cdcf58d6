"""The problem stage: what to differentiate (a parsed expression or a callable) and where
(one point, random points in a box, a grid), what to compute (gradient, Jacobian, vᵀJ, Jv,
Hessian), and the parsing of the user's values."""
