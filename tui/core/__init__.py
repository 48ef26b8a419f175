"""Rules and state machines that need neither the wire nor a screen (no Textual)."""
