"""Credential vault: AES-256-GCM envelope encryption per organisation, ``secret://`` references, logged reads.

Modules: ``service`` (``VaultService``, ``rewrap_data_keys``), ``crypto`` (envelope encryption),
``references`` (``secret://`` parsing), ``secret_text`` (``SecretText``), ``models``, ``cli``
(``finrpa secret``).
"""
