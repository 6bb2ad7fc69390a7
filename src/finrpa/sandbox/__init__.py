"""The sandbox portals: a bank, an insurer and a brokerage that imitate real Chinese financial portals.

A separate product from the platform (it imports only ``finrpa.kit``, ``finrpa.config`` and
``finrpa.exceptions``). Start it with ``finrpa sandbox`` or in-process with
``finrpa.sandbox.server.SandboxServer(SandboxConfig(...))``.
"""
