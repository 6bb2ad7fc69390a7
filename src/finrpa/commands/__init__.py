"""CLI commands that assemble the application (database, browser, runner) for one process."""
