"""Sends one message with Python's smtplib, as a real-world client would: EHLO, optional STARTTLS and AUTH.

Usage: smtplib_send.py JSON   where JSON has host, port, starttls, username, password, mail_from, rcpt_to,
and either raw (message text) or subject/body. Prints one JSON line: {"ok": true} or {"code", "message", "stage"}.
"""
import json
import smtplib
import ssl
import sys


def main() -> None:
    spec = json.loads(sys.argv[1])
    stage = "connect"
    try:
        client = smtplib.SMTP(spec["host"], spec["port"], timeout=20)
        stage = "ehlo"
        client.ehlo("smtplib.test")
        if spec.get("starttls"):
            stage = "starttls"
            client.starttls(context=ssl._create_unverified_context())
            client.ehlo("smtplib.test")
        if spec.get("username") is not None:
            stage = "auth"
            client.login(spec["username"], spec["password"])
        stage = "send"
        raw = spec.get("raw")
        if raw is None:
            raw = f"From: {spec['mail_from']}\r\nTo: {', '.join(spec['rcpt_to'])}\r\nSubject: {spec['subject']}\r\n\r\n{spec['body']}\r\n"
        client.sendmail(spec["mail_from"], spec["rcpt_to"], raw.encode("utf-8"))
        client.quit()
        print(json.dumps({"ok": True}))
    except smtplib.SMTPRecipientsRefused as err:
        code, message = next(iter(err.recipients.values()))
        print(json.dumps({"ok": False, "stage": stage, "code": code, "message": message.decode()}))
    except smtplib.SMTPServerDisconnected as err:
        print(json.dumps({"ok": False, "stage": stage, "code": 0, "message": f"disconnected: {err}", "disconnected": True}))
    except smtplib.SMTPResponseException as err:
        print(json.dumps({"ok": False, "stage": stage, "code": err.smtp_code, "message": err.smtp_error.decode(errors="replace")}))


if __name__ == "__main__":
    main()
