"""Identity: organisations, departments, business lines, users, roles, the permission chain and sign-in.

Modules: ``models`` (tables), ``permissions`` (``decide_permission`` — the one permission function),
``service`` (``DirectoryService``), ``auth`` (``AuthService``: login, refresh, logout, authenticate),
``api_keys`` (``ApiKeyService``), ``dependencies`` (FastAPI ``authenticated``), ``seed`` (demo only),
``errors`` (the error tree), ``cli``/``user_cli`` (``finrpa org|dept|line|user``).
"""
