"""Workflow templates: versioned YAML data that compiles into a TaskPlan of skill steps."""
