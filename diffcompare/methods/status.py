"""What became of a method's run, besides values: it ran (``ok``), it does not apply to this
problem, its time budget ran out, or it failed (the estimate's reason says why)."""

OK, NOT_APPLICABLE, TIMED_OUT, FAILED = "ok", "not applicable", "timed out", "failed"
