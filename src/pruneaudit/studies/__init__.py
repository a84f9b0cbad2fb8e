"""Study pipelines: the runs, tidy frames and derived tables each study notebook shows."""
