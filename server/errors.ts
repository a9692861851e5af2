import { z } from "zod";
import { env } from "@/server/env";

/**
 * The ONE catalogue of error codes (docs/api.md, "Errors"). Every adapter renders errors through this table:
 * status, type, whether a retry can succeed, and the message in es, en and pt.
 */
export type ErrorType =
  | "rate_limited"
  | "invalid_request"
  | "auth"
  | "not_found"
  | "plan_limit"
  | "internal"
  | "conflict"
  | "idempotency_conflict"
  | "service_unavailable"
  | "tos_not_accepted";

export type Language = "es" | "en" | "pt";

export type Messages = Record<Language, string>;

type CatalogueEntry = { status: number; type: ErrorType; recoverable: boolean; messages: Messages };

function entry(status: number, type: ErrorType, recoverable: boolean, messages: Messages): CatalogueEntry {
  return { status, type, recoverable, messages };
}

export const ERROR_CATALOGUE = {
  invalid_request: entry(400, "invalid_request", false, {
    en: "The request is invalid.",
    es: "La solicitud no es válida.",
    pt: "A solicitação é inválida.",
  }),
  invalid_json: entry(400, "invalid_request", false, {
    en: "The request body is not valid JSON.",
    es: "El cuerpo de la solicitud no es JSON válido.",
    pt: "O corpo da solicitação não é um JSON válido.",
  }),
  invalid_verification_code: entry(400, "invalid_request", false, {
    en: "The verification code is wrong or has expired.",
    es: "El código de verificación es incorrecto o ha caducado.",
    pt: "O código de verificação está errado ou expirou.",
  }),
  invalid_webhook_url: entry(400, "invalid_request", false, {
    en: "The webhook URL is not allowed.",
    es: "La URL del webhook no está permitida.",
    pt: "A URL do webhook não é permitida.",
  }),
  invalid_order_transition: entry(400, "invalid_request", false, {
    en: "The order cannot move to that status.",
    es: "El pedido no puede pasar a ese estado.",
    pt: "O pedido não pode passar para esse status.",
  }),
  insufficient_stock: entry(400, "invalid_request", false, {
    en: "There is not enough stock for this product.",
    es: "No hay existencias suficientes de este producto.",
    pt: "Não há estoque suficiente deste produto.",
  }),
  missing_authorization: entry(401, "auth", false, {
    en: "No API key was provided. Send it as 'Authorization: Bearer <key>' or 'X-API-Key: <key>'.",
    es: "No se envió ninguna clave de API. Envíala como 'Authorization: Bearer <clave>' o 'X-API-Key: <clave>'.",
    pt: "Nenhuma chave de API foi enviada. Envie-a como 'Authorization: Bearer <chave>' ou 'X-API-Key: <chave>'.",
  }),
  invalid_api_key: entry(401, "auth", false, {
    en: "The API key is not valid.",
    es: "La clave de API no es válida.",
    pt: "A chave de API não é válida.",
  }),
  api_key_revoked: entry(401, "auth", false, {
    en: "The API key has been revoked.",
    es: "La clave de API ha sido revocada.",
    pt: "A chave de API foi revogada.",
  }),
  insufficient_scope: entry(403, "auth", false, {
    en: "The API key does not hold a scope this operation requires.",
    es: "La clave de API no tiene un permiso que esta operación requiere.",
    pt: "A chave de API não possui um escopo exigido por esta operação.",
  }),
  email_not_verified: entry(403, "auth", false, {
    en: "The account's email address has not been verified yet.",
    es: "El correo electrónico de la cuenta aún no ha sido verificado.",
    pt: "O e-mail da conta ainda não foi verificado.",
  }),
  account_cancelled: entry(403, "auth", false, {
    en: "The account has been cancelled.",
    es: "La cuenta ha sido cancelada.",
    pt: "A conta foi cancelada.",
  }),
  tos_not_accepted: entry(403, "tos_not_accepted", false, {
    en: "The current terms of service have not been accepted.",
    es: "No se han aceptado los términos de servicio vigentes.",
    pt: "Os termos de serviço atuais não foram aceitos.",
  }),
  storefront_not_found: entry(404, "not_found", false, {
    en: "No storefront was found with that id.",
    es: "No se encontró ninguna tienda con ese id.",
    pt: "Nenhuma loja foi encontrada com esse id.",
  }),
  product_not_found: entry(404, "not_found", false, {
    en: "No product was found with that id.",
    es: "No se encontró ningún producto con ese id.",
    pt: "Nenhum produto foi encontrado com esse id.",
  }),
  file_not_found: entry(404, "not_found", false, {
    en: "No file was found with that id.",
    es: "No se encontró ningún archivo con ese id.",
    pt: "Nenhum arquivo foi encontrado com esse id.",
  }),
  user_not_found: entry(404, "not_found", false, {
    en: "No user was found with that id.",
    es: "No se encontró ningún usuario con ese id.",
    pt: "Nenhum usuário foi encontrado com esse id.",
  }),
  order_not_found: entry(404, "not_found", false, {
    en: "No order was found with that id.",
    es: "No se encontró ningún pedido con ese id.",
    pt: "Nenhum pedido foi encontrado com esse id.",
  }),
  webhook_endpoint_not_found: entry(404, "not_found", false, {
    en: "No webhook endpoint was found with that id.",
    es: "No se encontró ningún endpoint de webhook con ese id.",
    pt: "Nenhum endpoint de webhook foi encontrado com esse id.",
  }),
  route_not_found: entry(404, "not_found", false, {
    en: "No operation exists at this path.",
    es: "No existe ninguna operación en esta ruta.",
    pt: "Não existe nenhuma operação neste caminho.",
  }),
  method_not_allowed: entry(405, "invalid_request", false, {
    en: "This path does not accept that HTTP method.",
    es: "Esta ruta no acepta ese método HTTP.",
    pt: "Este caminho não aceita esse método HTTP.",
  }),
  storefront_deleted: entry(410, "not_found", false, {
    en: "The storefront has been deleted.",
    es: "La tienda ha sido eliminada.",
    pt: "A loja foi excluída.",
  }),
  email_taken: entry(409, "conflict", false, {
    en: "An active account already uses this email address.",
    es: "Una cuenta activa ya usa este correo electrónico.",
    pt: "Uma conta ativa já usa este e-mail.",
  }),
  slug_taken: entry(409, "conflict", false, {
    en: "Another storefront already uses this slug.",
    es: "Otra tienda ya usa este slug.",
    pt: "Outra loja já usa este slug.",
  }),
  storefront_conflict: entry(409, "conflict", true, {
    en: "The storefront changed since you read it (If-Match is stale). Read it again and retry.",
    es: "La tienda cambió desde que la leíste (If-Match desactualizado). Vuelve a leerla y reintenta.",
    pt: "A loja mudou desde que você a leu (If-Match desatualizado). Leia-a novamente e tente de novo.",
  }),
  order_already_paid: entry(409, "conflict", false, {
    en: "The order has already been paid.",
    es: "El pedido ya fue pagado.",
    pt: "O pedido já foi pago.",
  }),
  webhook_endpoint_limit_reached: entry(409, "conflict", false, {
    en: "The account already has the maximum of 16 webhook endpoints.",
    es: "La cuenta ya tiene el máximo de 16 endpoints de webhook.",
    pt: "A conta já tem o máximo de 16 endpoints de webhook.",
  }),
  webhook_endpoint_paused: entry(409, "conflict", false, {
    en: "The webhook endpoint is paused. Enable it to receive events, test events included.",
    es: "El endpoint de webhook está en pausa. Actívalo para recibir eventos, también los de prueba.",
    pt: "O endpoint de webhook está pausado. Ative-o para receber eventos, inclusive os de teste.",
  }),
  idempotency_key_reused: entry(409, "idempotency_conflict", false, {
    en: "This Idempotency-Key was already used with a different request.",
    es: "Esta Idempotency-Key ya se usó con una solicitud diferente.",
    pt: "Esta Idempotency-Key já foi usada com uma solicitação diferente.",
  }),
  idempotency_request_in_progress: entry(409, "idempotency_conflict", true, {
    en: "A request with this Idempotency-Key is still in progress. Retry shortly.",
    es: "Una solicitud con esta Idempotency-Key aún está en curso. Reintenta en breve.",
    pt: "Uma solicitação com esta Idempotency-Key ainda está em andamento. Tente novamente em breve.",
  }),
  plan_max_products_reached: entry(402, "plan_limit", false, {
    en: "The plan's product limit has been reached.",
    es: "Se alcanzó el límite de productos del plan.",
    pt: "O limite de produtos do plano foi atingido.",
  }),
  plan_max_storefronts_reached: entry(402, "plan_limit", false, {
    en: "The plan's storefront limit has been reached.",
    es: "Se alcanzó el límite de tiendas del plan.",
    pt: "O limite de lojas do plano foi atingido.",
  }),
  plan_storage_quota_reached: entry(402, "plan_limit", false, {
    en: "The plan's file storage quota has been reached.",
    es: "Se alcanzó la cuota de almacenamiento de archivos del plan.",
    pt: "A cota de armazenamento de arquivos do plano foi atingida.",
  }),
  plan_cannot_publish: entry(402, "plan_limit", false, {
    en: "The account's plan cannot publish storefronts.",
    es: "El plan de la cuenta no permite publicar tiendas.",
    pt: "O plano da conta não permite publicar lojas.",
  }),
  products_over_limit: entry(402, "plan_limit", false, {
    en: "This product was not created: it is over the plan's product limit.",
    es: "Este producto no se creó: supera el límite de productos del plan.",
    pt: "Este produto não foi criado: ultrapassa o limite de produtos do plano.",
  }),
  payload_too_large: entry(413, "invalid_request", false, {
    en: "The request body is larger than 1 MiB.",
    es: "El cuerpo de la solicitud supera 1 MiB.",
    pt: "O corpo da solicitação é maior que 1 MiB.",
  }),
  rate_limit_exceeded: entry(429, "rate_limited", true, {
    en: "Too many requests for this API key.",
    es: "Demasiadas solicitudes para esta clave de API.",
    pt: "Solicitações demais para esta chave de API.",
  }),
  internal_error: entry(500, "internal", true, {
    en: "Something went wrong on our side. The request id identifies it.",
    es: "Algo salió mal de nuestro lado. El id de solicitud lo identifica.",
    pt: "Algo deu errado do nosso lado. O id da solicitação o identifica.",
  }),
  service_unavailable: entry(503, "service_unavailable", true, {
    en: "The service is temporarily unavailable. Retry shortly.",
    es: "El servicio no está disponible temporalmente. Reintenta en breve.",
    pt: "O serviço está temporariamente indisponível. Tente novamente em breve.",
  }),
  // Dashboard sign-in and sessions (server/sessions).
  invalid_email_address: entry(400, "invalid_request", false, {
    en: "Enter a valid email address, like name@example.com.",
    es: "Escribe un correo electrónico válido, como nombre@ejemplo.com.",
    pt: "Digite um e-mail válido, como nome@exemplo.com.",
  }),
  invalid_sign_in_code: entry(400, "invalid_request", false, {
    en: "That code is not right. Check the latest mail we sent and try again.",
    es: "Ese código no es correcto. Revisa el último correo que te enviamos e inténtalo de nuevo.",
    pt: "Esse código não está correto. Confira o último e-mail que enviamos e tente de novo.",
  }),
  sign_in_code_expired: entry(400, "invalid_request", false, {
    en: "This code has expired or was tried too many times. Request a new code.",
    es: "Este código caducó o se intentó demasiadas veces. Solicita un código nuevo.",
    pt: "Este código expirou ou foi tentado vezes demais. Solicite um novo código.",
  }),
  sign_in_expired: entry(400, "invalid_request", false, {
    en: "This sign-in took too long and has expired. Start again with your email.",
    es: "Este inicio de sesión tardó demasiado y caducó. Vuelve a empezar con tu correo.",
    pt: "Este login demorou demais e expirou. Comece de novo com seu e-mail.",
  }),
  sign_in_rate_limited: entry(429, "rate_limited", true, {
    en: "Too many sign-in attempts. Please wait a little and try again.",
    es: "Demasiados intentos de inicio de sesión. Espera un poco e inténtalo de nuevo.",
    pt: "Tentativas de login demais. Aguarde um pouco e tente de novo.",
  }),
  session_required: entry(401, "auth", false, {
    en: "Sign in to continue.",
    es: "Inicia sesión para continuar.",
    pt: "Entre na sua conta para continuar.",
  }),
  // The public storefront page (docs/api.md, "Public storefront").
  storefront_closed: entry(409, "conflict", true, {
    en: "This store is closed right now and is not taking orders.",
    es: "Esta tienda está cerrada en este momento y no está recibiendo pedidos.",
    pt: "Esta loja está fechada agora e não está recebendo pedidos.",
  }),
  order_rate_limited: entry(429, "rate_limited", true, {
    en: "Too many orders from your connection in a short time. Please wait a minute and try again.",
    es: "Demasiados pedidos desde tu conexión en poco tiempo. Espera un minuto e inténtalo de nuevo.",
    pt: "Pedidos demais da sua conexão em pouco tempo. Aguarde um minuto e tente de novo.",
  }),
  // Per-account limits of the doors without an API key to count (docs/security.md, "Limits").
  session_rate_limited: entry(429, "rate_limited", true, {
    en: "Too many requests from this account's dashboard in a short time. Please wait a minute and try again.",
    es: "Demasiadas solicitudes desde el panel de esta cuenta en poco tiempo. Espera un minuto e inténtalo de nuevo.",
    pt: "Solicitações demais do painel desta conta em pouco tempo. Aguarde um minuto e tente de novo.",
  }),
  webhook_action_rate_limited: entry(429, "rate_limited", true, {
    en: "Too many test events, resends or recoveries for this account in a short time. Please wait and try again.",
    es: "Demasiados eventos de prueba, reenvíos o recuperaciones para esta cuenta en poco tiempo. Espera e inténtalo de nuevo.",
    pt: "Eventos de teste, reenvios ou recuperações demais para esta conta em pouco tempo. Aguarde e tente de novo.",
  }),
  cross_site_request: entry(403, "auth", false, {
    en: "The request came from another site and was refused.",
    es: "La solicitud vino de otro sitio y fue rechazada.",
    pt: "A solicitação veio de outro site e foi recusada.",
  }),
  // GraphQL (docs/graphql.md, "Limits"): refused before it runs.
  query_too_complex: entry(400, "invalid_request", false, {
    en: "The GraphQL query is over a limit (depth, cost, aliases, tokens or directives).",
    es: "La consulta GraphQL supera un límite (profundidad, coste, alias, tokens o directivas).",
    pt: "A consulta GraphQL ultrapassa um limite (profundidade, custo, aliases, tokens ou diretivas).",
  }),
  // MCP and OAuth (server/mcp, server/oauth; docs/mcp.md).
  invalid_token: entry(401, "auth", false, {
    en: "The access token is invalid, has expired or was revoked. Authorize the app again.",
    es: "El token de acceso no es válido, caducó o fue revocado. Vuelve a autorizar la aplicación.",
    pt: "O token de acesso é inválido, expirou ou foi revogado. Autorize o aplicativo novamente.",
  }),
  host_not_allowed: entry(403, "auth", false, {
    en: "The request was sent to a host name this server does not answer for.",
    es: "La solicitud se envió a un nombre de host al que este servidor no responde.",
    pt: "A solicitação foi enviada a um nome de host ao qual este servidor não responde.",
  }),
  oauth_request_expired: entry(400, "invalid_request", false, {
    en: "This authorization request has expired or was already answered. Start again from the app.",
    es: "Esta solicitud de autorización caducó o ya fue respondida. Vuelve a empezar desde la aplicación.",
    pt: "Esta solicitação de autorização expirou ou já foi respondida. Comece de novo pelo aplicativo.",
  }),
  // Why `/oauth/authorize` could not answer at the client's redirect URI: the only texts `/oauth/error` shows
  // (docs/mcp.md, "Authorize"); never a detail of the request, a fetched host or its address.
  oauth_client_unknown: entry(400, "invalid_request", false, {
    en: "Unknown client_id. The app is not registered with Marea, or its registration has expired: remove Marea from the app and add it again.",
    es: "client_id desconocido. La aplicación no está registrada en Marea o su registro caducó: quita Marea de la aplicación y vuelve a añadirla.",
    pt: "client_id desconhecido. O aplicativo não está registrado no Marea ou o registro expirou: remova o Marea do aplicativo e adicione-o novamente.",
  }),
  oauth_client_host_not_allowed: entry(400, "invalid_request", false, {
    en: "The app's client metadata document is on a host that is not allowed.",
    es: "El documento de metadatos de cliente de la aplicación está en un host que no está permitido.",
    pt: "O documento de metadados de cliente do aplicativo está em um host que não é permitido.",
  }),
  oauth_client_document_unavailable: entry(400, "invalid_request", true, {
    en: "The app's client metadata document could not be fetched. Try again later; if it keeps happening, tell the app's makers.",
    es: "No se pudo obtener el documento de metadatos de cliente de la aplicación. Inténtalo más tarde; si sigue pasando, avisa a quienes hacen la aplicación.",
    pt: "Não foi possível obter o documento de metadados de cliente do aplicativo. Tente mais tarde; se continuar acontecendo, avise quem faz o aplicativo.",
  }),
  oauth_client_document_invalid: entry(400, "invalid_request", false, {
    en: "The app's client metadata document is not valid, so Marea cannot trust it.",
    es: "El documento de metadatos de cliente de la aplicación no es válido, así que Marea no puede confiar en él.",
    pt: "O documento de metadados de cliente do aplicativo não é válido, então o Marea não pode confiar nele.",
  }),
  oauth_redirect_uri_unregistered: entry(400, "invalid_request", false, {
    en: "redirect_uri is not one this client registered. Marea only sends answers to an address the app registered.",
    es: "redirect_uri no es una de las direcciones que registró este cliente. Marea solo envía respuestas a una dirección que la aplicación registró.",
    pt: "redirect_uri não é um dos endereços que este cliente registrou. O Marea só envia respostas para um endereço que o aplicativo registrou.",
  }),
  oauth_request_malformed: entry(400, "invalid_request", false, {
    en: "The app's authorization request is incomplete or malformed (it must ask for response_type=code with an S256 PKCE challenge).",
    es: "La solicitud de autorización de la aplicación está incompleta o mal formada (debe pedir response_type=code con un desafío PKCE S256).",
    pt: "A solicitação de autorização do aplicativo está incompleta ou malformada (ela deve pedir response_type=code com um desafio PKCE S256).",
  }),
  oauth_rate_limited: entry(429, "rate_limited", true, {
    en: "Too many authorization requests came from your network. Wait a few minutes and connect again from the app.",
    es: "Llegaron demasiadas solicitudes de autorización desde tu red. Espera unos minutos y vuelve a conectar desde la aplicación.",
    pt: "Chegaram solicitações de autorização demais da sua rede. Aguarde alguns minutos e conecte novamente pelo aplicativo.",
  }),
  connected_app_not_found: entry(404, "not_found", false, {
    en: "No connected app was found with that client id.",
    es: "No se encontró ninguna aplicación conectada con ese client id.",
    pt: "Nenhum aplicativo conectado foi encontrado com esse client id.",
  }),
  webhook_delivery_not_found: entry(404, "not_found", false, {
    en: "No delivery of this webhook endpoint was found with that id in the last 30 days.",
    es: "No se encontró ninguna entrega de este endpoint de webhook con ese id en los últimos 30 días.",
    pt: "Nenhuma entrega deste endpoint de webhook foi encontrada com esse id nos últimos 30 dias.",
  }),
  event_not_found: entry(404, "not_found", false, {
    en: "No event of your webhook endpoints was found with that id in the last 30 days.",
    es: "No se encontró ningún evento de tus endpoints de webhook con ese id en los últimos 30 días.",
    pt: "Nenhum evento dos seus endpoints de webhook foi encontrado com esse id nos últimos 30 dias.",
  }),
  webhook_delivery_in_progress: entry(409, "conflict", true, {
    en: "This delivery still has an attempt scheduled. Resend it once it has finished.",
    es: "Esta entrega aún tiene un intento programado. Reenvíala cuando haya terminado.",
    pt: "Esta entrega ainda tem uma tentativa agendada. Reenvie-a quando ela terminar.",
  }),
  // `marea listen` (docs/webhooks.md, "Local development: marea listen").
  listen_session_not_found: entry(404, "not_found", false, {
    en: "No listen session of this account was found with that id.",
    es: "No se encontró ninguna sesión de escucha de esta cuenta con ese id.",
    pt: "Nenhuma sessão de escuta desta conta foi encontrada com esse id.",
  }),
  listen_session_closed: entry(410, "not_found", false, {
    en: "This listen session is closed. Start `marea listen` again for a new one.",
    es: "Esta sesión de escucha está cerrada. Vuelve a ejecutar `marea listen` para abrir otra.",
    pt: "Esta sessão de escuta está fechada. Execute `marea listen` de novo para abrir outra.",
  }),
  listen_session_limit_reached: entry(409, "conflict", false, {
    en: "This account has as many open listen sessions as it may. Close one (Ctrl+C in its terminal, or in the dashboard) first.",
    es: "Esta cuenta ya tiene tantas sesiones de escucha abiertas como se permite. Cierra una primero (Ctrl+C en su terminal, o en el panel).",
    pt: "Esta conta já tem tantas sessões de escuta abertas quanto é permitido. Feche uma primeiro (Ctrl+C no terminal dela, ou no painel).",
  }),
  listen_session_none_open: entry(409, "conflict", false, {
    en: "No open listen session of this account receives this event type. Run `marea listen` first.",
    es: "Ninguna sesión de escucha abierta de esta cuenta recibe este tipo de evento. Ejecuta `marea listen` primero.",
    pt: "Nenhuma sessão de escuta aberta desta conta recebe este tipo de evento. Execute `marea listen` primeiro.",
  }),
  api_key_not_found: entry(404, "not_found", false, {
    en: "No API key of this account was found with that id.",
    es: "No se encontró ninguna clave de API de esta cuenta con ese id.",
    pt: "Nenhuma chave de API desta conta foi encontrada com esse id.",
  }),
  // Abuse limits (docs/security.md, "Abuse limits and product decisions").
  storefront_busy: entry(429, "rate_limited", true, {
    en: "This store is receiving too many orders right now. Please try again in a few minutes.",
    es: "Esta tienda está recibiendo demasiados pedidos en este momento. Inténtalo de nuevo en unos minutos.",
    pt: "Esta loja está recebendo pedidos demais agora. Tente de novo em alguns minutos.",
  }),
  verification_rate_limited: entry(429, "rate_limited", true, {
    en: "Too many verification attempts or codes today for this account. Try again tomorrow (UTC).",
    es: "Demasiados intentos o códigos de verificación hoy para esta cuenta. Vuelve a intentarlo mañana (UTC).",
    pt: "Tentativas ou códigos de verificação demais hoje para esta conta. Tente de novo amanhã (UTC).",
  }),
  verification_locked: entry(409, "conflict", false, {
    en: "This account has used up its verification codes and attempts. The person can still sign in to the dashboard with the address; a partner must cancel the account (DELETE /v1/me) and bootstrap it again.",
    es: "Esta cuenta agotó sus códigos e intentos de verificación. La persona aún puede entrar al panel con la dirección; un socio debe cancelar la cuenta (DELETE /v1/me) y volver a crearla.",
    pt: "Esta conta esgotou seus códigos e tentativas de verificação. A pessoa ainda pode entrar no painel com o endereço; um parceiro deve cancelar a conta (DELETE /v1/me) e criá-la de novo.",
  }),
  partner_access_off: entry(403, "auth", false, {
    en: "The account's owner has not given your developer account access to it: it cannot issue keys for it.",
    es: "La persona dueña de la cuenta no dio acceso a tu cuenta de desarrollador: no puede emitir claves para ella.",
    pt: "A pessoa dona da conta não deu acesso à sua conta de desenvolvedor: ela não pode emitir chaves para ela.",
  }),
  api_key_limit_reached: entry(409, "conflict", false, {
    en: "This account holds as many live keys of this kind as it may. Revoke one first.",
    es: "Esta cuenta ya tiene tantas claves activas de este tipo como se permite. Revoca una primero.",
    pt: "Esta conta já tem tantas chaves ativas deste tipo quanto é permitido. Revogue uma primeiro.",
  }),
  bootstrap_rate_limited: entry(429, "rate_limited", true, {
    en: "Too many accounts bootstrapped in a short time.",
    es: "Demasiadas cuentas creadas en poco tiempo.",
    pt: "Contas criadas demais em pouco tempo.",
  }),
} satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/**
 * What the caller can do next, named by operation (server/wiring/operations.ts) so no service knows a URL: REST
 * renders it as `{label, method, url}` of its /v1 route; other adapters show the label.
 */
export type NextAction = { label: string; operation: string | null };
export type Upgrade = { currentPlan: string; requiredPlan: string; upgradeUrl: string; previewUrl?: string };

/**
 * A product the plan limit kept out, as services answer it: its index in the request, the catalogue code, the
 * JSON path of the manifest and what would lift the limit. Each door renders it as its error shape through the
 * one renderer (server/kit/rejected.ts). Here, in the core, so no door imports a feature for it.
 */
export type RejectedProduct = {
  index: number;
  code: "products_over_limit";
  param: string;
  upgrade: Upgrade;
  /** The specific limit, appended to the localized catalogue message. */
  detail: Messages;
};

export type AppErrorOptions = {
  param?: string | null;
  /** Replaces the catalogue message (already localized by the caller) when the detail matters. */
  message?: Partial<Record<Language, string>>;
  /**
   * Appended to the catalogue message: the specific detail (e.g. a field's problem), by language. A language the
   * detail lacks gets the whole message in one the detail has (English first), and a plain string is English
   * only: a message never mixes two languages (docs/api.md, "Hostile and malformed input").
   */
  detail?: string | Partial<Messages>;
  retryAfterMs?: number | null;
  nextActions?: NextAction[];
  upgrade?: Upgrade | null;
  requiredScopes?: string[];
  heldScopes?: string[];
  headers?: Record<string, string>;
};

/** The only error services throw. Adapters render it through the catalogue. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly options: AppErrorOptions;

  constructor(code: ErrorCode, options: AppErrorOptions = {}) {
    const detail =
      typeof options.detail === "string"
        ? options.detail
        : (options.detail?.en ?? Object.values(options.detail ?? {})[0]);
    super(`${code}${detail ? `: ${detail}` : ""}`);
    this.name = "AppError";
    this.code = code;
    this.options = options;
  }

  get status(): number {
    return ERROR_CATALOGUE[this.code].status;
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}

export function isLanguage(value: unknown): value is Language {
  return value === "es" || value === "en" || value === "pt";
}

/**
 * The first of es, en or pt an Accept-Language header asks for (q-values honoured), or null when it asks for
 * none of them. The one ranking of the service: API answers (`pickLanguage`), the doors that also read the
 * language cookie (server/kit/language.ts) and the pages (app/_i18n/catalogue.ts) all use it.
 */
export function acceptedLanguage(acceptLanguage: string | null | undefined): Language | null {
  if (!acceptLanguage) return null;
  const ranked = acceptLanguage
    .split(",")
    .map((part, index) => {
      const [tag = "", ...params] = part.trim().split(";");
      const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
      return { lang: tag.trim().toLowerCase().slice(0, 2), q: q ? Number(q.slice(2)) : 1, index };
    })
    .filter((r) => r.q > 0 && !Number.isNaN(r.q))
    .sort((a, b) => b.q - a.q || a.index - b.index);
  return ranked.map((r) => r.lang).find(isLanguage) ?? null;
}

/** Picks es, en or pt from an Accept-Language header (q-values honoured); default en. */
export function pickLanguage(acceptLanguage: string | null | undefined): Language {
  return acceptedLanguage(acceptLanguage) ?? "en";
}

export function messageFor(error: AppError, language: Language): string {
  const [lang, detail] = detailFor(error.options.detail, language);
  const base = error.options.message?.[lang] ?? ERROR_CATALOGUE[error.code].messages[lang];
  return detail ? `${base} ${detail}` : base;
}

/** The language the whole message is written in, and the detail in that language. */
function detailFor(detail: AppErrorOptions["detail"], language: Language): [Language, string | undefined] {
  if (detail === undefined) return [language, undefined];
  if (typeof detail === "string") return ["en", detail];
  const available =
    detail[language] !== undefined ? language : (["en", "es", "pt"] as const).find((l) => detail[l]);
  return available ? [available, detail[available]] : [language, undefined];
}

/** The error envelope (docs/api.md, "Errors"): every non-2xx REST answer has exactly this shape. */
export const ErrorEnvelope = z
  .object({
    error: z.object({
      type: z.enum([
        "rate_limited",
        "invalid_request",
        "auth",
        "not_found",
        "plan_limit",
        "internal",
        "conflict",
        "idempotency_conflict",
        "service_unavailable",
        "tos_not_accepted",
      ]),
      code: z.string(),
      message: z.string(),
      doc: z.string(),
      param: z.string().nullable(),
      requestId: z.string().regex(/^req_/),
      recoverable: z.boolean(),
      retryAfterMs: z.number().int().nullable(),
      nextActions: z.array(
        z.object({ label: z.string(), method: z.string().nullable(), url: z.string().nullable() }),
      ),
      upgrade: z
        .object({
          currentPlan: z.string(),
          requiredPlan: z.string(),
          upgradeUrl: z.string(),
          previewUrl: z.string().optional(),
        })
        .nullable(),
      requiredScopes: z.array(z.string()).optional(),
      heldScopes: z.array(z.string()).optional(),
    }),
  })
  .meta({ id: "ErrorEnvelope", description: "Every non-2xx response uses this envelope." });

export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;
export type ErrorObject = ErrorEnvelope["error"];

/** Where an operation lives for the adapter rendering the error (REST: its method and /v1 URL). */
export type ActionResolver = (operation: string) => { method: string; url: string } | null;

/**
 * The catalogue error as the envelope's `error` object, for every adapter: REST sends it as is, tRPC, GraphQL
 * and MCP carry the same fields. `resolveAction` turns a next action's operation into a method and URL.
 */
export function errorBody(
  error: AppError,
  requestId: string,
  language: Language,
  resolveAction: ActionResolver = () => null,
): ErrorEnvelope {
  const entry = ERROR_CATALOGUE[error.code];
  const o = error.options;
  const body: ErrorObject = {
    type: entry.type,
    code: error.code,
    message: messageFor(error, language),
    doc: `${env().DOCS_URL}/errors#${error.code}`,
    param: o.param ?? null,
    requestId,
    recoverable: entry.recoverable,
    retryAfterMs: o.retryAfterMs ?? null,
    nextActions: (o.nextActions ?? []).map((action) => {
      const target = action.operation ? resolveAction(action.operation) : null;
      return { label: action.label, method: target?.method ?? null, url: target?.url ?? null };
    }),
    upgrade: o.upgrade ?? null,
  };
  if (o.requiredScopes) body.requiredScopes = o.requiredScopes;
  if (o.heldScopes) body.heldScopes = o.heldScopes;
  return { error: body };
}
