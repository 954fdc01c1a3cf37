"""Safety by construction: the scrubber, the text boundary, the policy engine, ankit's private state files and the
OS sandbox. Each class of harm has one mechanism here that every caller goes through. May import only `settings`,
`records` and `errors` from ankit."""
