package apiclient

import "time"

// MailDNSTimeout bounds the read a MailDNS makes (mailcow's DKIM key,
// Yandex 360's verification status), retries included, whatever the
// caller's deadline: the DNS checklist answers within about 5 s. When the
// read fails or runs out of time, MailDNS still returns what is fixed (the
// MX host, the SPF rule) beside the error.
const MailDNSTimeout = 3 * time.Second
