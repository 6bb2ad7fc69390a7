"""Object storage for evidence (screenshots, downloaded files, exports): one port, two adapters.

:class:`~finrpa.objectstore.port.ObjectStore` is the port; :class:`~finrpa.objectstore.local.LocalObjectStore`
(a directory, with HMAC-signed expiring links served by :mod:`finrpa.objectstore.router`) and
:class:`~finrpa.objectstore.s3.S3ObjectStore` (MinIO, Ceph RGW, AWS; presigned URLs) are the adapters;
:func:`~finrpa.objectstore.factory.object_store_from_settings` picks one from the settings.
"""
