import type { OrderEntity } from '../persistence/order.entity';

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

function money(value: number, currency: string): string {
  return `${(value / 100).toFixed(2)} ${currency}`;
}

function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** The order confirmation, text and HTML, with the POS's receipt exactly as reported. */
export function renderConfirmation(order: OrderEntity): RenderedMail {
  const report = order.placement?.report;
  const name = report?.orderName ?? order.id;
  const lines = order.items.map(
    (item) =>
      `${item.quantity} x ${item.title}  ${money(item.quantity * item.unitPrice, order.totals.currency)}`,
  );
  const ready = report?.estimatedReadyTime
    ? `Estimated ready time: ${report.estimatedReadyTime}`
    : '';
  const total = `Total: ${money(order.totals.total, order.totals.currency)}`;
  const subject = `Your order ${name} at ${order.storeDetails.name}`;
  const text = [
    `Thank you for your order at ${order.storeDetails.name}.`,
    `Order: ${name}`,
    ready,
    '',
    ...lines,
    total,
    ...(order.receipt !== null ? ['', 'Receipt:', order.receipt] : []),
  ]
    .filter((line, index, all) => line !== '' || all[index - 1] !== '')
    .join('\n');
  const html = [
    '<!doctype html><html><body>',
    `<p>Thank you for your order at ${escapeHtml(order.storeDetails.name)}.</p>`,
    `<p>Order: <strong>${escapeHtml(name)}</strong></p>`,
    ready ? `<p>${escapeHtml(ready)}</p>` : '',
    `<ul>${lines.map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul>`,
    `<p>${escapeHtml(total)}</p>`,
    order.receipt !== null ? `<h2>Receipt</h2><pre>${escapeHtml(order.receipt)}</pre>` : '',
    '</body></html>',
  ].join('');
  return { subject, text, html };
}
