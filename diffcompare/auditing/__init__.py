"""The audit: suites of cases, the points an audit looks at, the runs of a batch of points
and where they run (here, in processes, on Dask), and the audit report's data."""
