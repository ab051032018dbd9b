import { trasmissioneFattureAnswer, type TrasmissioneFattureAnswer } from '../../einvoicing/sdi/sdiCoop/trasmissioneFatture.js';
import type { SdiPushOutcome } from './service.js';

/**
 * The SdI's answer, as SDICoop expects it: 202 for a notification taken (again, when repeated);
 * a SOAP Fault otherwise, Client for a request that cannot be read, with 404 for a URL that
 * names no sdicoop configuration.
 */
export function sdiPushAnswer(result: SdiPushOutcome): TrasmissioneFattureAnswer {
  switch (result.outcome) {
    case 'stored':
    case 'repeated':
      return trasmissioneFattureAnswer({ taken: true });
    case 'unreadable':
      return trasmissioneFattureAnswer({ taken: false, fault: 'Client', reason: `${result.error.code}: ${result.error.message}` });
    case 'unknown_configuration':
      return { ...trasmissioneFattureAnswer({ taken: false, fault: 'Client', reason: 'No SDICoop configuration has this notification URL' }), statusCode: 404 };
  }
}

/** The answer when the notification could not be kept: a Server fault, so that the SdI pushes it again. */
export const sdiPushNotKept = (): TrasmissioneFattureAnswer =>
  trasmissioneFattureAnswer({ taken: false, fault: 'Server', reason: 'The notification could not be stored; push it again' });
