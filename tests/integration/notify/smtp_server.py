"""A tiny asyncio SMTP server for tests: EHLO, STARTTLS, implicit TLS, AUTH PLAIN, scripted DATA replies.

It records each accepted message with its envelope, whether the session was encrypted and who logged in.
"""

from __future__ import annotations

import asyncio
import base64
import datetime
import ipaddress
import ssl
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


@dataclass(frozen=True)
class ReceivedMail:
    mail_from: str
    rcpt_to: tuple[str, ...]
    data: bytes
    encrypted: bool
    login: str | None

    def message(self) -> EmailMessage:
        parsed = message_from_bytes(self.data, policy=policy.default)
        assert isinstance(parsed, EmailMessage)
        return parsed


@dataclass
class _Session:
    encrypted: bool
    login: str | None = None
    mail_from: str = ""
    rcpt_to: list[str] = field(default_factory=list)


def self_signed_certificate(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1/localhost that is its own CA (give it to the client as ca_file)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "FinRPA test SMTP")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "smtp-cert.pem", folder / "smtp-key.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return cert_path, key_path


class SmtpServer:
    def __init__(
        self,
        *,
        tls: ssl.SSLContext | None = None,
        implicit_tls: bool = False,
        login: tuple[str, str] | None = None,
    ) -> None:
        self.tls = tls
        self.implicit_tls = implicit_tls
        self.login = login
        self.mail: list[ReceivedMail] = []
        self.data_replies: list[str] = []  # e.g. "451 try later"; default "250 queued"
        self._server: asyncio.Server | None = None

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.sockets[0].getsockname()[1])

    async def __aenter__(self) -> SmtpServer:
        ssl_context = self.tls if self.implicit_tls else None
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=ssl_context)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        session = _Session(encrypted=self.implicit_tls)
        try:
            await _reply(writer, "220 localhost FinRPA test SMTP")
            while line := await reader.readline():
                command, _, argument = line.decode().rstrip("\r\n").partition(" ")
                if not await self._handle(command.upper(), argument, session, reader, writer):
                    break
        except (ConnectionError, ssl.SSLError):
            pass  # a client that refused our certificate hangs up mid-handshake
        finally:
            writer.close()

    async def _handle(
        self,
        command: str,
        argument: str,
        session: _Session,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
    ) -> bool:
        if command == "EHLO":
            await _reply(writer, *self._capabilities(session))
        elif command == "HELO" or command in ("NOOP", "RSET"):
            await _reply(writer, "250 OK")
        elif command == "STARTTLS" and self.tls is not None and not session.encrypted:
            await _reply(writer, "220 Ready to start TLS")
            await writer.start_tls(self.tls)
            session.encrypted = True
        elif command == "AUTH":
            await _reply(writer, self._authenticate(argument, session))
        elif command == "MAIL":
            await _reply(writer, self._mail_from(argument, session))
        elif command == "RCPT":
            session.rcpt_to.append(argument.partition(":")[2].strip().strip("<>"))
            await _reply(writer, "250 OK")
        elif command == "DATA":
            await self._data(session, reader, writer)
        elif command == "QUIT":
            await _reply(writer, "221 Bye")
            return False
        else:
            await _reply(writer, "502 Command not implemented")
        return True

    def _capabilities(self, session: _Session) -> list[str]:
        lines = ["250-localhost"]
        if self.tls is not None and not session.encrypted:
            lines.append("250-STARTTLS")
        if self.login is not None and session.encrypted:
            lines.append("250-AUTH PLAIN")
        return [*lines, "250 8BITMIME"]

    def _authenticate(self, argument: str, session: _Session) -> str:
        mechanism, _, initial = argument.partition(" ")
        if mechanism.upper() != "PLAIN" or not session.encrypted:
            return "504 Unrecognized authentication type"
        _, user, password = base64.b64decode(initial).decode().split("\0")
        if self.login != (user, password):
            return "535 5.7.8 Authentication credentials invalid"
        session.login = user
        return "235 2.7.0 Authentication successful"

    def _mail_from(self, argument: str, session: _Session) -> str:
        if self.login is not None and session.login is None:
            return "530 5.7.0 Authentication required"
        session.mail_from = argument.partition(":")[2].split()[0].strip("<>")
        session.rcpt_to = []
        return "250 OK"

    async def _data(
        self, session: _Session, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        await _reply(writer, "354 End data with <CR><LF>.<CR><LF>")
        lines = []
        while (line := await reader.readline()) != b".\r\n":
            lines.append(line[1:] if line.startswith(b"..") else line)
        reply = self.data_replies.pop(0) if self.data_replies else "250 Queued"
        if reply.startswith("250"):
            mail = ReceivedMail(
                session.mail_from, tuple(session.rcpt_to), b"".join(lines), session.encrypted, session.login
            )
            self.mail.append(mail)
        await _reply(writer, reply)


async def _reply(writer: asyncio.StreamWriter, *lines: str) -> None:
    writer.write("".join(f"{line}\r\n" for line in lines).encode())
    await writer.drain()
