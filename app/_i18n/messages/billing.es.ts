import type { billingEn } from "./billing.en";

export const billingEs: Record<keyof typeof billingEn, string> = {
  "billing.title": "Planes",
  "billing.description": "Lo que permite cada plan, y cómo cambiar el tuyo.",
  "billing.current": "Tienes el {plan}.",
  "billing.compare": "Comparación de planes",
  "billing.plan": "Plan",
  "billing.storefronts": "Tiendas",
  "billing.products": "Productos",
  "billing.publish": "Publicar tiendas",
  "billing.yes": "Sí",
  "billing.no": "No",
  "billing.yours": "Tu plan",
  "billing.suggested": "Recomendado",
  "billing.howTitle": "Cómo mejorar tu plan",
  "billing.how":
    "Marea todavía no tiene pago en línea: el equipo de Marea cambia las cuentas a {plan}. Pide a tu contacto en Marea que mejore {email}; tus tiendas, productos y claves se quedan como están, y podrás publicar en cuanto cambie el plan.",
  "billing.onPro": "Tu cuenta ya tiene todos los límites del plan Pro.",
};
