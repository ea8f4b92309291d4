"""Security: scopes (what a caller was granted), the path ACL (what a vault allows), and the
HTTP-edge token verification that turns a bearer token into a `Principal`."""
