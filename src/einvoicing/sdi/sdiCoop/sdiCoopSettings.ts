/** What a channel to the SdI over SDICoop needs: where SdIRiceviFile is, and the accredited channel's TLS identity. */
export interface SdiCoopSettings {
  /** The SdIRiceviFile endpoint (https), as the SDICoop service agreement gives it. */
  endpoint: string;
  /** The client certificate the SdI issued to the accredited channel, PEM. */
  clientCertificatePem: string;
  /** Its private key, PEM (unencrypted: the caller unseals it). */
  clientKeyPem: string;
  /** The certificate authorities that signed the SdI's server certificate, PEM each. */
  caPems: string[];
  /** The longest one RiceviFile call may take, connection and answer together. */
  timeoutMs: number;
  /** How long after a look that found no notification the transmission worker looks again. */
  pollDelayMs: number;
}
