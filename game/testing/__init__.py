"""What users' tests can import: world checks, golden transcripts, engines with the standard
defaults, and a scripted OpenAI-compatible server for fault injection."""
