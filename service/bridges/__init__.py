"""Bridges to a running Obsidian: what only the app can do, asked over HTTP.

    tls.py       trusting the plugin's self-signed certificate: its file, or its pinned SHA-256
    rest_api.py  the Local REST API plugin's requests and answers, errors mapped to the bridge errors
    probe.py     the capability probe and its report (server_health shows it)
    hub.py       Bridges: one client per vault with a [vaults.bridge], probes at start and on demand

The tools are in `service.tools.bridges`; configuration in `service.settings.bridges`.
"""
