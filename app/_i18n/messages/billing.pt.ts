import type { billingEn } from "./billing.en";

export const billingPt: Record<keyof typeof billingEn, string> = {
  "billing.title": "Planos",
  "billing.description": "O que cada plano permite, e como mudar o seu.",
  "billing.current": "Você está no {plan}.",
  "billing.compare": "Comparação de planos",
  "billing.plan": "Plano",
  "billing.storefronts": "Lojas",
  "billing.products": "Produtos",
  "billing.publish": "Publicar lojas",
  "billing.yes": "Sim",
  "billing.no": "Não",
  "billing.yours": "Seu plano",
  "billing.suggested": "Recomendado",
  "billing.howTitle": "Como mudar de plano",
  "billing.how":
    "A Marea ainda não tem pagamento on-line: a equipe da Marea muda as contas para o {plan}. Peça ao seu contato na Marea para mudar {email}; suas lojas, produtos e chaves continuam como estão, e a publicação é liberada assim que o plano mudar.",
  "billing.onPro": "Sua conta já tem todos os limites do plano Pro.",
};
