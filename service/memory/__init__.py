"""Agent memory inside the vault (issue 37): the capture queue (`captures`) and the experiential
tier (`experiences`)."""
