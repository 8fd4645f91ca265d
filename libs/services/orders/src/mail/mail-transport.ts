import { createTransport, type Transporter } from 'nodemailer';

export interface Mail {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** Where confirmation e-mails go: SMTP when configured, otherwise nowhere (they stay stored). */
export abstract class MailTransport {
  abstract readonly kind: 'smtp' | 'stored';
  abstract send(mail: Mail): Promise<void>;
}

export class SmtpMailTransport extends MailTransport {
  readonly kind = 'smtp' as const;
  private readonly transporter: Transporter;

  constructor(url: string) {
    super();
    this.transporter = createTransport(url);
  }

  async send(mail: Mail): Promise<void> {
    await this.transporter.sendMail(mail);
  }
}

export class StoredOnlyMailTransport extends MailTransport {
  readonly kind = 'stored' as const;

  async send(): Promise<void> {
    // The e-mail is already stored by the caller and readable through the API.
  }
}
