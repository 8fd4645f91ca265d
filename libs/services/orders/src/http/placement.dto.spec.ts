import fc from 'fast-check';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { flattenValidationErrors } from '@comanda/http';
import { FailedReportDto, PlacedReportDto } from './placement.dto';
import { rfc3339Of } from './validators';

/** The messages validation gives a placed report with `orderName`, [] when it is valid. */
async function orderNameErrors(orderName: unknown): Promise<string[]> {
  const report = plainToInstance(PlacedReportDto, {
    orderName,
    datePlaced: '2026-11-23T18:00:00Z',
    estimatedReadyTime: '2026-11-23T18:20:00Z',
  });
  const errors = await validate(report, { forbidUnknownValues: true });
  return errors.flatMap((error) => Object.values(error.constraints ?? {}));
}

describe('a placed report’s orderName, shown to the guest and in the e-mail subject', () => {
  it.each([
    ['a check number', 'Check 42'],
    ['letters of other scripts', 'Tisch 7 – Müller / 山田 / محمد'],
    ['a right-to-left name with its marks', '\u200fשולחן 5\u200f'],
    ['an emoji', '🍕 12'],
    ['a Braille pattern with dots', '\u2801\u2803'],
    ['a name with inner spaces and a joiner between letters', 'Ana\u200dMaria 3'],
  ])('takes %s', async (_name, value) => {
    expect(await orderNameErrors(value)).toEqual([]);
  });

  it.each([
    ['a blank name', '   '],
    ['a zero-width space', '\u200b'],
    ['a word joiner', '\u2060'],
    ['zero-width joiners', '\u200d\u200d'],
    ['the Hangul filler', '\u3164'],
    ['a lone combining mark', '\u0301'],
    ['a no-break space', '\u00a0'],
    ['the blank Braille pattern', '\u2800'],
    ['a soft hyphen and the blank Braille pattern', '\u00ad\u2800'],
  ])('refuses %s: no visible text', async (_name, value) => {
    expect(await orderNameErrors(value)).toEqual(['orderName must contain visible text']);
  });

  it.each([
    ['a line feed', 'a\nb'],
    ['a tab', 'a\tb'],
    ['NEL, a C1 control and a line break', 'a\u0085b'],
    ['the line separator', 'a\u2028b'],
    ['the paragraph separator', 'a\u2029b'],
    ['a right-to-left override', 'Check \u202e24'],
    ['a first-strong isolate', 'Check \u206824'],
    ['DEL', 'a\u007fb'],
  ])('refuses %s', async (_name, value) => {
    expect(await orderNameErrors(value)).toEqual([
      'orderName must not contain line breaks, control characters or bidi controls',
    ]);
  });

  it('says once that a number is no text', async () => {
    const errors = await orderNameErrors(42);
    expect(errors).toContain('orderName must be a string');
    expect(errors.filter((message) => /visible|control/.test(message))).toEqual([]);
  });
});

describe('the optional fields of the placement reports', () => {
  const placed = {
    orderName: 'Check 42',
    datePlaced: '2026-11-23T18:00:00Z',
    estimatedReadyTime: '2026-11-23T18:20:00Z',
  };
  const failedFields = async (body: object, type: new () => object) =>
    (await validate(plainToInstance(type, body), { forbidUnknownValues: true })).map(
      (error) => error.property,
    );

  it('may be left out', async () => {
    expect(await failedFields(placed, PlacedReportDto)).toEqual([]);
    expect(await failedFields({ code: 'pos.down', message: 'm' }, FailedReportDto)).toEqual([]);
  });

  it.each(['cancelableUntil', 'orderRefsDict', 'receipt', 'extensions'])(
    'refuses %s given as null: a value of the wrong type, not a field left out',
    async (field) => {
      expect(await failedFields({ ...placed, [field]: null }, PlacedReportDto)).toEqual([field]);
    },
  );

  it('refuses a failed report’s data given as null', async () => {
    expect(
      await failedFields({ code: 'pos.down', message: 'm', data: null }, FailedReportDto),
    ).toEqual(['data']);
  });
});

describe('what a placed report without its date says', () => {
  it('names the missing date-time, not a length it could not exceed', async () => {
    const report = plainToInstance(PlacedReportDto, {
      orderName: 'Check 42',
      estimatedReadyTime: '2026-11-23T18:20:00Z',
    });
    expect(flattenValidationErrors(await validate(report))).toEqual([
      { path: 'datePlaced', message: expect.stringMatching(/date-time/) },
    ]);
  });
});

describe('the date-times of a placed report', () => {
  const errorsFor = async (datePlaced: string) =>
    flattenValidationErrors(
      await validate(
        plainToInstance(PlacedReportDto, {
          orderName: 'Check 42',
          datePlaced,
          estimatedReadyTime: '2026-11-23T18:20:00Z',
        }),
      ),
    );

  it.each([
    ['a time in UTC', '2026-11-23T18:00:00Z'],
    ['a time with an offset and a fraction', '2026-11-23T19:00:00.123+01:00'],
    ['a leap second in UTC (RFC 3339 §5.7)', '2016-12-31T23:59:60Z'],
    ['a leap second under an offset', '1990-12-31T15:59:60-08:00'],
    ['a leap second with a fraction', '2016-12-31T23:59:60.5Z'],
  ])('takes %s', async (_name, value) => {
    expect(await errorsFor(value)).toEqual([]);
  });

  it.each([
    ['a second 60 that is no leap second (not 23:59 UTC)', '2026-11-23T18:00:60Z'],
    ['a second 60 at 23:59 local time but not UTC', '2016-12-31T23:59:60+01:00'],
    ['a second 61', '2016-12-31T23:59:61Z'],
    ['a day that does not exist', '2026-02-30T12:00:00Z'],
    ['a time without a zone', '2026-11-23T18:00:00'],
    ['a date alone', '2026-11-23'],
    ['a basic-format time without a zone', '20261123T180000'],
    ['a week date', '2026-W48-1T18:00:00Z'],
    ['hour 24', '2026-11-23T24:00:00Z'],
    ['an offset of 24 hours', '2026-11-23T18:00:00+24:00'],
  ])('refuses %s', async (_name, value) => {
    expect(await errorsFor(value)).toEqual([
      { path: 'datePlaced', message: expect.stringMatching(/ISO 8601 date-time with a time zone/) },
    ]);
  });
});

describe('ISO 8601 date-times in their RFC 3339 form', () => {
  it.each([
    ['2026-11-23T19:20:00+01:00', '2026-11-23T19:20:00+01:00'],
    ['2026-11-23t18:20:00z', '2026-11-23T18:20:00Z'],
    ['2026-11-23T19:20:00+0100', '2026-11-23T19:20:00+01:00'],
    ['2026-11-23T19:20+01', '2026-11-23T19:20:00+01:00'],
    ['2026-11-23T18Z', '2026-11-23T18:00:00Z'],
    ['20261123T192000+0100', '2026-11-23T19:20:00+01:00'],
    ['20261123T1820Z', '2026-11-23T18:20:00Z'],
    ['2026-11-23T18:20:00,25-03:30', '2026-11-23T18:20:00.25-03:30'],
  ])('keeps %s as %s, and a report takes it so', async (given, kept) => {
    expect(rfc3339Of(given)).toBe(kept);
    const report = plainToInstance(PlacedReportDto, {
      orderName: 'Check 42',
      datePlaced: given,
      estimatedReadyTime: given,
    });
    expect(flattenValidationErrors(await validate(report))).toEqual([]);
    expect([report.datePlaced, report.estimatedReadyTime]).toEqual([kept, kept]);
  });

  it('names the same instant as the value it was given', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1970-01-01'), max: new Date('2999-12-31'), noInvalidDate: true }),
        fc.integer({ min: -14, max: 14 }),
        (instant, hours) => {
          // The instant written under an offset of whole hours, in the basic format.
          const local = new Date(instant.getTime() + hours * 3_600_000).toISOString();
          const sign = hours < 0 ? '-' : '+';
          const offset = `${sign}${String(Math.abs(hours)).padStart(2, '0')}00`;
          const basic = `${local.slice(0, 19).replace(/[-:]/g, '')}${offset}`;
          const seconds = Math.floor(instant.getTime() / 1000) * 1000;
          expect(Date.parse(rfc3339Of(basic))).toBe(seconds);
        },
      ),
    );
  });
});
