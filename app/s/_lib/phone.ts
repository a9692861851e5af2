/**
 * Country calling codes for the checkout's phone field (E.164: `+` and the country code, then the national
 * number). A short list for the regions the storefronts serve; the default comes from the storefront's WhatsApp
 * number, else its currency.
 */
export const CALLING_CODES: Array<{ region: string; code: string }> = [
  { region: "MX", code: "52" },
  { region: "AR", code: "54" },
  { region: "BO", code: "591" },
  { region: "BR", code: "55" },
  { region: "CL", code: "56" },
  { region: "CO", code: "57" },
  { region: "CR", code: "506" },
  { region: "CU", code: "53" },
  { region: "DO", code: "1" },
  { region: "EC", code: "593" },
  { region: "SV", code: "503" },
  { region: "GT", code: "502" },
  { region: "HN", code: "504" },
  { region: "NI", code: "505" },
  { region: "PA", code: "507" },
  { region: "PY", code: "595" },
  { region: "PE", code: "51" },
  { region: "PR", code: "1" },
  { region: "UY", code: "598" },
  { region: "VE", code: "58" },
  { region: "US", code: "1" },
  { region: "CA", code: "1" },
  { region: "ES", code: "34" },
  { region: "PT", code: "351" },
  { region: "AO", code: "244" },
  { region: "MZ", code: "258" },
  { region: "GB", code: "44" },
  { region: "FR", code: "33" },
  { region: "DE", code: "49" },
  { region: "IT", code: "39" },
];

const CURRENCY_REGIONS: Record<string, string> = {
  MXN: "MX",
  ARS: "AR",
  BOB: "BO",
  BRL: "BR",
  CLP: "CL",
  COP: "CO",
  CRC: "CR",
  CUP: "CU",
  DOP: "DO",
  GTQ: "GT",
  HNL: "HN",
  NIO: "NI",
  PAB: "PA",
  PYG: "PY",
  PEN: "PE",
  SVC: "SV",
  UYU: "UY",
  VES: "VE",
  USD: "US",
  CAD: "CA",
  GBP: "GB",
  AOA: "AO",
  MZN: "MZ",
};

/** The region the phone field starts on: the WhatsApp number's country code (longest match), else the currency's. */
export function defaultRegion(whatsapp: string | null, currency: string): string {
  const digits = whatsapp?.replace(/\D/g, "") ?? "";
  const byCode = [...CALLING_CODES]
    .sort((a, b) => b.code.length - a.code.length)
    .find((entry) => digits.startsWith(entry.code));
  const currencyRegion = CURRENCY_REGIONS[currency];
  // "+1" is shared; the currency says which of its countries.
  if (
    byCode?.code === "1" &&
    currencyRegion &&
    CALLING_CODES.some((e) => e.region === currencyRegion && e.code === "1")
  ) {
    return currencyRegion;
  }
  return byCode?.region ?? currencyRegion ?? "MX";
}

/** `+5215512345678` from the region and what the customer typed (spaces, dashes and a leading 0 dropped). */
export function toE164(region: string, national: string): string {
  const code = CALLING_CODES.find((entry) => entry.region === region)?.code ?? "";
  const digits = national.replace(/[\s().-]/g, "").replace(/^0+/, "");
  return `+${code}${digits}`;
}
