import type { ErrorCode, Messages } from "@/server/errors";

/**
 * The error reference (`{DOCS_URL}/errors#<code>`, docs/api.md, "Errors"): for every code of the catalogue in
 * server/errors.ts, when it happens and what to do, in es, en and pt. Typed by the catalogue, so a code added there
 * does not compile until it is explained here, and every `doc` link any door emits has its section at /docs/errors.
 */
export type ErrorReferenceEntry = { when: Messages; fix: Messages };

export const ERROR_REFERENCE: Record<ErrorCode, ErrorReferenceEntry> = {
  invalid_request: {
    when: {
      en: "A field, query parameter or header failed validation: a wrong type, a value out of range, an unknown field. `param` is the JSON path of the first offending field (`delivery.ranges[1].fromKm`) and `message` says what is wrong.",
      es: "Un campo, parámetro de consulta o encabezado no pasó la validación: tipo incorrecto, valor fuera de rango o un campo desconocido. `param` es la ruta JSON del primer campo con problemas (`delivery.ranges[1].fromKm`) y `message` dice qué está mal.",
      pt: "Um campo, parâmetro de consulta ou cabeçalho não passou na validação: tipo errado, valor fora do intervalo ou um campo desconhecido. `param` é o caminho JSON do primeiro campo com problema (`delivery.ranges[1].fromKm`) e `message` diz o que está errado.",
    },
    fix: {
      en: "Fix the field `param` names and send the request again; nothing was written. The schemas are in /v1/openapi.json.",
      es: "Corrige el campo que indica `param` y vuelve a enviar la solicitud; no se escribió nada. Los esquemas están en /v1/openapi.json.",
      pt: "Corrija o campo indicado em `param` e envie a solicitação de novo; nada foi gravado. Os esquemas estão em /v1/openapi.json.",
    },
  },
  invalid_json: {
    when: {
      en: "The request body could not be parsed as JSON (a trailing comma, single quotes, a cut-off body, a wrong encoding).",
      es: "El cuerpo de la solicitud no se pudo leer como JSON (una coma final, comillas simples, un cuerpo cortado, otra codificación).",
      pt: "O corpo da solicitação não pôde ser lido como JSON (uma vírgula no final, aspas simples, um corpo cortado, outra codificação).",
    },
    fix: {
      en: "Send valid UTF-8 JSON with `Content-Type: application/json`; build it with your language's JSON encoder rather than by hand.",
      es: "Envía JSON válido en UTF-8 con `Content-Type: application/json`; genéralo con el codificador JSON de tu lenguaje, no a mano.",
      pt: "Envie JSON válido em UTF-8 com `Content-Type: application/json`; gere-o com o codificador JSON da sua linguagem, não à mão.",
    },
  },
  invalid_verification_code: {
    when: {
      en: "`POST /v1/me/verify` got a code that is wrong, expired, or void after 5 wrong attempts.",
      es: "`POST /v1/me/verify` recibió un código incorrecto, caducado o anulado tras 5 intentos fallidos.",
      pt: "`POST /v1/me/verify` recebeu um código errado, expirado ou anulado após 5 tentativas erradas.",
    },
    fix: {
      en: "Use the code of the latest verification mail, or request a new one with `POST /v1/me/resend-verification`.",
      es: "Usa el código del último correo de verificación, o pide uno nuevo con `POST /v1/me/resend-verification`.",
      pt: "Use o código do último e-mail de verificação, ou peça um novo com `POST /v1/me/resend-verification`.",
    },
  },
  invalid_webhook_url: {
    when: {
      en: "A webhook endpoint's `url` is refused: not `https:`, longer than 2048 characters, with credentials, or a private, loopback or internal host.",
      es: "Se rechazó la `url` de un endpoint de webhook: no es `https:`, supera 2048 caracteres, lleva credenciales o apunta a un host privado, local o interno.",
      pt: "A `url` de um endpoint de webhook foi recusada: não é `https:`, passa de 2048 caracteres, tem credenciais ou aponta para um host privado, local ou interno.",
    },
    fix: {
      en: 'Register a public HTTPS URL that your receiver answers on. The full rules are in the webhooks guide, "URL rules".',
      es: 'Registra una URL HTTPS pública en la que responda tu receptor. Las reglas completas están en la guía de webhooks, "URL rules".',
      pt: 'Registre uma URL HTTPS pública em que o seu receptor responda. As regras completas estão no guia de webhooks, "URL rules".',
    },
  },
  invalid_order_transition: {
    when: {
      en: "An order was asked to move to a status it cannot reach from its current one (for example from `delivered` back to `pending`), or a cancelled order was paid.",
      es: "Se pidió mover un pedido a un estado al que no puede pasar desde el actual (por ejemplo de `delivered` a `pending`), o se pagó un pedido cancelado.",
      pt: "Pediu-se para mover um pedido para um status que ele não pode alcançar a partir do atual (por exemplo de `delivered` para `pending`), ou um pedido cancelado foi pago.",
    },
    fix: {
      en: "Read the order and move it one allowed step at a time; `delivered` and `cancelled` are final.",
      es: "Lee el pedido y muévelo paso a paso por los estados permitidos; `delivered` y `cancelled` son finales.",
      pt: "Leia o pedido e mova-o um passo permitido de cada vez; `delivered` e `cancelled` são finais.",
    },
  },
  insufficient_stock: {
    when: {
      en: "An order asks for more units of a product (or of a chosen option) than its stock holds. `param` points at the line (`items[0].amount`).",
      es: "Un pedido pide más unidades de un producto (o de una opción elegida) de las que hay en existencia. `param` señala la línea (`items[0].amount`).",
      pt: "Um pedido pede mais unidades de um produto (ou de uma opção escolhida) do que há em estoque. `param` aponta a linha (`items[0].amount`).",
    },
    fix: {
      en: "Lower the amount to what is left (the message says how many), or restock the product first.",
      es: "Baja la cantidad a lo que queda (el mensaje dice cuántas), o repón existencias primero.",
      pt: "Reduza a quantidade ao que resta (a mensagem diz quantas), ou reponha o estoque primeiro.",
    },
  },
  missing_authorization: {
    when: {
      en: "A request that needs an API key carried none. It is answered before rate limiting and does not count.",
      es: "Una solicitud que necesita clave de API no llevó ninguna. Se responde antes del límite de solicitudes y no cuenta.",
      pt: "Uma solicitação que precisa de chave de API não trouxe nenhuma. É respondida antes do limite de solicitações e não conta.",
    },
    fix: {
      en: "Send the key as `Authorization: Bearer <key>` or `X-API-Key: <key>`.",
      es: "Envía la clave como `Authorization: Bearer <clave>` o `X-API-Key: <clave>`.",
      pt: "Envie a chave como `Authorization: Bearer <chave>` ou `X-API-Key: <chave>`.",
    },
  },
  invalid_api_key: {
    when: {
      en: "The key sent is unknown or malformed (a typo, a truncated copy, a key of another installation).",
      es: "La clave enviada es desconocida o está mal formada (un error al escribirla, una copia cortada, una clave de otra instalación).",
      pt: "A chave enviada é desconhecida ou malformada (um erro de digitação, uma cópia cortada, uma chave de outra instalação).",
    },
    fix: {
      en: "Copy the whole key again (`mk_dev_…` or `mk_user_…`). Raw keys are shown once: if it is lost, issue a new one.",
      es: "Vuelve a copiar la clave completa (`mk_dev_…` o `mk_user_…`). Las claves se muestran una sola vez: si se perdió, emite una nueva.",
      pt: "Copie de novo a chave inteira (`mk_dev_…` ou `mk_user_…`). As chaves aparecem uma vez só: se a perdeu, emita uma nova.",
    },
  },
  api_key_revoked: {
    when: {
      en: "The key was revoked, from the dashboard or with the command line.",
      es: "La clave fue revocada, desde el panel o con la línea de comandos.",
      pt: "A chave foi revogada, pelo painel ou pela linha de comando.",
    },
    fix: {
      en: "Stop using it and switch to another live key of the account; revocation cannot be undone.",
      es: "Deja de usarla y cambia a otra clave vigente de la cuenta; una revocación no se puede deshacer.",
      pt: "Pare de usá-la e troque por outra chave ativa da conta; a revogação não pode ser desfeita.",
    },
  },
  insufficient_scope: {
    when: {
      en: "The key does not hold any of the scopes the operation needs. `requiredScopes` lists them (any one suffices) and `heldScopes` what the key has.",
      es: "La clave no tiene ninguno de los permisos que la operación necesita. `requiredScopes` los lista (basta uno) y `heldScopes` muestra los que tiene.",
      pt: "A chave não tem nenhum dos escopos de que a operação precisa. `requiredScopes` os lista (basta um) e `heldScopes` mostra os que ela tem.",
    },
    fix: {
      en: "Use a key of the right kind: developer operations need an `mk_dev_` key, catalog operations an `mk_user_` key. `storefront:publish` comes once the user verifies their email.",
      es: "Usa una clave del tipo correcto: las operaciones de desarrollador necesitan una clave `mk_dev_`, las del catálogo una `mk_user_`. `storefront:publish` llega cuando el usuario verifica su correo.",
      pt: "Use uma chave do tipo certo: operações de desenvolvedor precisam de uma chave `mk_dev_`, as do catálogo de uma `mk_user_`. `storefront:publish` chega quando o usuário verifica o e-mail.",
    },
  },
  email_not_verified: {
    when: {
      en: "The operation (publishing a storefront, for one) needs an account whose email is verified.",
      es: "La operación (publicar una tienda, por ejemplo) necesita una cuenta con el correo verificado.",
      pt: "A operação (publicar uma loja, por exemplo) precisa de uma conta com o e-mail verificado.",
    },
    fix: {
      en: "Verify with the mailed code (`POST /v1/me/verify`), or resend it (`POST /v1/me/resend-verification`), then retry.",
      es: "Verifica con el código enviado por correo (`POST /v1/me/verify`), o reenvíalo (`POST /v1/me/resend-verification`), y reintenta.",
      pt: "Verifique com o código enviado por e-mail (`POST /v1/me/verify`), ou reenvie-o (`POST /v1/me/resend-verification`), e tente de novo.",
    },
  },
  account_cancelled: {
    when: {
      en: "The key belongs to a cancelled account: the user cancelled, or the service cleaned the account up (see `user.cancelled` and its `reason`).",
      es: "La clave pertenece a una cuenta cancelada: el usuario canceló o el servicio la limpió (mira `user.cancelled` y su `reason`).",
      pt: "A chave pertence a uma conta cancelada: o usuário cancelou ou o serviço a removeu (veja `user.cancelled` e o seu `reason`).",
    },
    fix: {
      en: "Stop calling with this key. The person can sign up again with the same email, which makes a new account.",
      es: "Deja de llamar con esta clave. La persona puede registrarse de nuevo con el mismo correo, lo que crea una cuenta nueva.",
      pt: "Pare de chamar com esta chave. A pessoa pode se cadastrar de novo com o mesmo e-mail, o que cria uma conta nova.",
    },
  },
  tos_not_accepted: {
    when: {
      en: "New terms of service were published and this verified account has not accepted them: every write is refused until it does; reads still work.",
      es: "Se publicaron nuevos términos de servicio y esta cuenta verificada no los aceptó: toda escritura se rechaza hasta que lo haga; las lecturas siguen funcionando.",
      pt: "Novos termos de serviço foram publicados e esta conta verificada não os aceitou: toda escrita é recusada até que aceite; as leituras continuam funcionando.",
    },
    fix: {
      en: "Accept the current version with `POST /v1/me/accept-terms` (the `nextActions` entry) or in the dashboard. After 90 days without it the account is cancelled.",
      es: "Acepta la versión vigente con `POST /v1/me/accept-terms` (la entrada de `nextActions`) o en el panel. Tras 90 días sin aceptarla, la cuenta se cancela.",
      pt: "Aceite a versão atual com `POST /v1/me/accept-terms` (a entrada de `nextActions`) ou no painel. Depois de 90 dias sem aceitar, a conta é cancelada.",
    },
  },
  storefront_not_found: {
    when: {
      en: "No storefront of this account has that id (another account's storefront answers the same, never 403).",
      es: "Ninguna tienda de esta cuenta tiene ese id (una tienda de otra cuenta responde igual, nunca 403).",
      pt: "Nenhuma loja desta conta tem esse id (uma loja de outra conta responde igual, nunca 403).",
    },
    fix: {
      en: "Check the id (`stf_…`) and that you use the key of the account that owns it; `GET /v1/storefronts` lists them.",
      es: "Revisa el id (`stf_…`) y que uses la clave de la cuenta dueña; `GET /v1/storefronts` las lista.",
      pt: "Confira o id (`stf_…`) e se está usando a chave da conta dona; `GET /v1/storefronts` as lista.",
    },
  },
  file_not_found: {
    when: {
      en: "No file with that id exists in this account (another account's file is not found either).",
      es: "No existe un archivo con ese id en esta cuenta (el de otra cuenta tampoco se encuentra).",
      pt: "Não existe arquivo com esse id nesta conta (o de outra conta também não é encontrado).",
    },
    fix: {
      en: "Check the file id (`fil_…`) that `POST /v1/files` answered; upload the image again if it was removed.",
      es: "Revisa el id del archivo (`fil_…`) que respondió `POST /v1/files`; sube la imagen de nuevo si se eliminó.",
      pt: "Confira o id do arquivo (`fil_…`) que `POST /v1/files` respondeu; envie a imagem de novo se foi removida.",
    },
  },
  product_not_found: {
    when: {
      en: "No product with that id exists in that storefront of this account.",
      es: "No existe un producto con ese id en esa tienda de esta cuenta.",
      pt: "Não existe produto com esse id nessa loja desta conta.",
    },
    fix: {
      en: "Check the product id (`prd_…`) and the storefront in the path; `GET /v1/storefronts/{storefrontId}/products` lists them.",
      es: "Revisa el id del producto (`prd_…`) y la tienda de la ruta; `GET /v1/storefronts/{storefrontId}/products` los lista.",
      pt: "Confira o id do produto (`prd_…`) e a loja do caminho; `GET /v1/storefronts/{storefrontId}/products` os lista.",
    },
  },
  user_not_found: {
    when: {
      en: "No user with that id was bootstrapped by this developer account.",
      es: "Ningún usuario con ese id fue dado de alta por esta cuenta de desarrollador.",
      pt: "Nenhum usuário com esse id foi cadastrado por esta conta de desenvolvedor.",
    },
    fix: {
      en: "Use the `userId` your bootstrap returned, with a developer key of the same account.",
      es: "Usa el `userId` que devolvió el alta, con una clave de desarrollador de la misma cuenta.",
      pt: "Use o `userId` que o cadastro devolveu, com uma chave de desenvolvedor da mesma conta.",
    },
  },
  order_not_found: {
    when: {
      en: "No order of this account has that id.",
      es: "Ningún pedido de esta cuenta tiene ese id.",
      pt: "Nenhum pedido desta conta tem esse id.",
    },
    fix: {
      en: "Check the order id (`ord_…`, the `orderId` of the order events) and the key's account.",
      es: "Revisa el id del pedido (`ord_…`, el `orderId` de los eventos de pedidos) y la cuenta de la clave.",
      pt: "Confira o id do pedido (`ord_…`, o `orderId` dos eventos de pedido) e a conta da chave.",
    },
  },
  webhook_endpoint_not_found: {
    when: {
      en: "No webhook endpoint of this account (and scope) has that id, or the id is malformed.",
      es: "Ningún endpoint de webhook de esta cuenta (y alcance) tiene ese id, o el id está mal formado.",
      pt: "Nenhum endpoint de webhook desta conta (e escopo) tem esse id, ou o id está malformado.",
    },
    fix: {
      en: "Use an id from `GET /v1/webhook_endpoints` (`mk_we_` + 16 hex). Merchant endpoints live in the dashboard only.",
      es: "Usa un id de `GET /v1/webhook_endpoints` (`mk_we_` + 16 hex). Los endpoints de comercio solo se gestionan en el panel.",
      pt: "Use um id de `GET /v1/webhook_endpoints` (`mk_we_` + 16 hex). Endpoints de comerciante só existem no painel.",
    },
  },
  route_not_found: {
    when: {
      en: "No operation exists at this path (a typo, a missing `/v1`, a trailing slash).",
      es: "No existe ninguna operación en esta ruta (un error de escritura, falta `/v1`, una barra final).",
      pt: "Não existe operação neste caminho (um erro de digitação, falta `/v1`, uma barra no final).",
    },
    fix: {
      en: "Compare the path with the API reference; paths have no trailing slash.",
      es: "Compara la ruta con la referencia de la API; las rutas no llevan barra final.",
      pt: "Compare o caminho com a referência da API; os caminhos não têm barra no final.",
    },
  },
  method_not_allowed: {
    when: {
      en: "The path exists but does not accept this HTTP method; the `Allow` header lists the ones it does.",
      es: "La ruta existe pero no acepta este método HTTP; el encabezado `Allow` lista los que acepta.",
      pt: "O caminho existe mas não aceita este método HTTP; o cabeçalho `Allow` lista os que aceita.",
    },
    fix: {
      en: "Use a method from `Allow` (webhook endpoints are updated with POST, storefronts with PATCH).",
      es: "Usa un método de `Allow` (los endpoints de webhook se actualizan con POST, las tiendas con PATCH).",
      pt: "Use um método de `Allow` (endpoints de webhook são atualizados com POST, lojas com PATCH).",
    },
  },
  storefront_deleted: {
    when: {
      en: "The storefront existed but was deleted; it can no longer be read or changed.",
      es: "La tienda existió pero fue eliminada; ya no se puede leer ni cambiar.",
      pt: "A loja existiu mas foi excluída; não pode mais ser lida nem alterada.",
    },
    fix: {
      en: "Drop it from your records; create a new storefront if needed (its slug is free again).",
      es: "Quítala de tus registros; crea una tienda nueva si hace falta (su slug vuelve a estar libre).",
      pt: "Remova-a dos seus registros; crie uma loja nova se precisar (o slug fica livre de novo).",
    },
  },
  email_taken: {
    when: {
      en: "A bootstrap asked for an email that an active (not cancelled) account already uses; emails compare case-insensitively.",
      es: "Un alta pidió un correo que ya usa una cuenta activa (no cancelada); los correos se comparan sin distinguir mayúsculas.",
      pt: "Um cadastro pediu um e-mail que uma conta ativa (não cancelada) já usa; e-mails são comparados sem diferenciar maiúsculas.",
    },
    fix: {
      en: "The person already has a Marea account: ask them to sign in to the dashboard instead of bootstrapping a new one.",
      es: "La persona ya tiene una cuenta en Marea: pídele que entre al panel en vez de darla de alta de nuevo.",
      pt: "A pessoa já tem uma conta no Marea: peça que ela entre no painel em vez de cadastrá-la de novo.",
    },
  },
  slug_taken: {
    when: {
      en: "Another live storefront already uses this slug.",
      es: "Otra tienda activa ya usa este slug.",
      pt: "Outra loja ativa já usa este slug.",
    },
    fix: {
      en: "Choose another slug, or leave it out when publishing and one is made from the name.",
      es: "Elige otro slug, o no lo envíes al publicar y se creará uno a partir del nombre.",
      pt: "Escolha outro slug, ou não o envie ao publicar e um será criado a partir do nome.",
    },
  },
  storefront_conflict: {
    when: {
      en: "A PATCH carried `If-Match` with an `updatedAt` that is no longer current: someone changed the storefront since you read it. Nothing was written.",
      es: "Un PATCH llevó `If-Match` con un `updatedAt` que ya no es el actual: alguien cambió la tienda desde que la leíste. No se escribió nada.",
      pt: "Um PATCH levou `If-Match` com um `updatedAt` que não é mais o atual: alguém alterou a loja desde que você a leu. Nada foi gravado.",
    },
    fix: {
      en: "Read the storefront again, reapply your change to the fresh copy and send it with the new `updatedAt`.",
      es: "Vuelve a leer la tienda, aplica tu cambio sobre la copia nueva y envíalo con el nuevo `updatedAt`.",
      pt: "Leia a loja de novo, reaplique a sua mudança na cópia nova e envie-a com o novo `updatedAt`.",
    },
  },
  order_already_paid: {
    when: {
      en: "`POST /v1/orders/{orderId}/pay` on an order that is already paid.",
      es: "`POST /v1/orders/{orderId}/pay` sobre un pedido que ya está pagado.",
      pt: "`POST /v1/orders/{orderId}/pay` em um pedido que já está pago.",
    },
    fix: {
      en: "Nothing to do: the first payment stands (`order.paid` was sent then). Retries of one call should reuse its `Idempotency-Key`.",
      es: "No hay nada que hacer: vale el primer pago (`order.paid` se envió entonces). Los reintentos de una llamada deben reusar su `Idempotency-Key`.",
      pt: "Nada a fazer: vale o primeiro pagamento (`order.paid` foi enviado então). Novas tentativas de uma chamada devem reusar a sua `Idempotency-Key`.",
    },
  },
  webhook_endpoint_limit_reached: {
    when: {
      en: "The account already has 16 webhook endpoints (developer and merchant together).",
      es: "La cuenta ya tiene 16 endpoints de webhook (de desarrollador y de comercio juntos).",
      pt: "A conta já tem 16 endpoints de webhook (de desenvolvedor e de comerciante juntos).",
    },
    fix: {
      en: "Delete an endpoint you no longer use, or subscribe one endpoint to several event types.",
      es: "Elimina un endpoint que ya no uses, o suscribe un mismo endpoint a varios tipos de evento.",
      pt: "Exclua um endpoint que não usa mais, ou assine vários tipos de evento em um mesmo endpoint.",
    },
  },
  webhook_endpoint_paused: {
    when: {
      en: "A test fire or a resend was asked of a paused (disabled) endpoint.",
      es: "Se pidió un envío de prueba o un reenvío a un endpoint en pausa (desactivado).",
      pt: "Pediu-se um envio de teste ou um reenvio a um endpoint pausado (desativado).",
    },
    fix: {
      en: 'Enable the endpoint (`{"enabled": true}`) first, then send again.',
      es: 'Activa primero el endpoint (`{"enabled": true}`) y vuelve a enviar.',
      pt: 'Ative primeiro o endpoint (`{"enabled": true}`) e envie de novo.',
    },
  },
  idempotency_key_reused: {
    when: {
      en: "This `Idempotency-Key` was already used by this key with a different request (another path, method or body).",
      es: "Esta `Idempotency-Key` ya se usó con esta clave en una solicitud diferente (otra ruta, método o cuerpo).",
      pt: "Esta `Idempotency-Key` já foi usada com esta chave em uma solicitação diferente (outro caminho, método ou corpo).",
    },
    fix: {
      en: "Use a fresh key (a UUID) for each new operation; reuse a key only to retry the very same request.",
      es: "Usa una clave nueva (un UUID) para cada operación nueva; reúsala solo para reintentar exactamente la misma solicitud.",
      pt: "Use uma chave nova (um UUID) para cada operação nova; reuse uma chave só para repetir exatamente a mesma solicitação.",
    },
  },
  idempotency_request_in_progress: {
    when: {
      en: "A request with this `Idempotency-Key` is still running (a retry arrived before the first one finished).",
      es: "Una solicitud con esta `Idempotency-Key` aún está en curso (un reintento llegó antes de que terminara la primera).",
      pt: "Uma solicitação com esta `Idempotency-Key` ainda está em andamento (uma nova tentativa chegou antes de a primeira terminar).",
    },
    fix: {
      en: "Wait a moment and retry with the same key: you then get the first request's answer.",
      es: "Espera un momento y reintenta con la misma clave: recibirás la respuesta de la primera solicitud.",
      pt: "Aguarde um momento e tente de novo com a mesma chave: você receberá a resposta da primeira solicitação.",
    },
  },
  plan_storage_quota_reached: {
    when: {
      en: "Storing this file would go over the plan's file storage quota (originals and their resized variants count).",
      es: "Guardar este archivo superaría la cuota de almacenamiento del plan (cuentan los originales y sus variantes).",
      pt: "Guardar este arquivo passaria da cota de armazenamento do plano (contam os originais e suas variantes).",
    },
    fix: {
      en: "Replace images nobody uses (files no product or storefront refers to are deleted after 30 days), or upgrade: `upgrade.upgradeUrl` opens the plans page.",
      es: "Reemplaza imágenes que nadie usa (los archivos sin producto ni tienda que los use se borran a los 30 días), o mejora el plan: `upgrade.upgradeUrl` abre la página de planes.",
      pt: "Substitua imagens que ninguém usa (arquivos sem produto ou loja que os use são apagados após 30 dias), ou faça upgrade: `upgrade.upgradeUrl` abre a página de planos.",
    },
  },
  plan_max_products_reached: {
    when: {
      en: "Creating this product would go over the plan's product limit.",
      es: "Crear este producto superaría el límite de productos del plan.",
      pt: "Criar este produto passaria do limite de produtos do plano.",
    },
    fix: {
      en: "Delete products you do not need, or upgrade: `upgrade.upgradeUrl` opens the plans page in the dashboard.",
      es: "Elimina productos que no necesites, o mejora el plan: `upgrade.upgradeUrl` abre la página de planes del panel.",
      pt: "Exclua produtos de que não precisa, ou mude de plano: `upgrade.upgradeUrl` abre a página de planos do painel.",
    },
  },
  plan_max_storefronts_reached: {
    when: {
      en: "Creating this storefront would go over the plan's storefront limit (1 or 3 on the free plans).",
      es: "Crear esta tienda superaría el límite de tiendas del plan (1 o 3 en los planes gratuitos).",
      pt: "Criar esta loja passaria do limite de lojas do plano (1 ou 3 nos planos gratuitos).",
    },
    fix: {
      en: "Delete a storefront you do not use, or upgrade through `upgrade.upgradeUrl`.",
      es: "Elimina una tienda que no uses, o mejora el plan con `upgrade.upgradeUrl`.",
      pt: "Exclua uma loja que não usa, ou mude de plano com `upgrade.upgradeUrl`.",
    },
  },
  plan_cannot_publish: {
    when: {
      en: "The account's plan does not allow publishing storefronts.",
      es: "El plan de la cuenta no permite publicar tiendas.",
      pt: "O plano da conta não permite publicar lojas.",
    },
    fix: {
      en: "Upgrade through `upgrade.upgradeUrl`; the storefront stays a draft meanwhile (`upgrade.previewUrl`, when present, shows it).",
      es: "Mejora el plan con `upgrade.upgradeUrl`; mientras tanto la tienda sigue como borrador (`upgrade.previewUrl`, si está, la muestra).",
      pt: "Mude de plano com `upgrade.upgradeUrl`; enquanto isso a loja continua como rascunho (`upgrade.previewUrl`, quando existe, a mostra).",
    },
  },
  products_over_limit: {
    when: {
      en: "Inside a 207 answer of a batch create: this product was not created because it would go over the plan's limit; the others were. `param` names it (`products[3]`).",
      es: "Dentro de una respuesta 207 de una creación en lote: este producto no se creó porque superaría el límite del plan; los demás sí. `param` lo señala (`products[3]`).",
      pt: "Dentro de uma resposta 207 de uma criação em lote: este produto não foi criado porque passaria do limite do plano; os outros foram. `param` o indica (`products[3]`).",
    },
    fix: {
      en: "Keep the created ones; send the rejected ones again after freeing room or upgrading (`upgrade.upgradeUrl`).",
      es: "Conserva los creados; vuelve a enviar los rechazados después de liberar espacio o mejorar el plan (`upgrade.upgradeUrl`).",
      pt: "Mantenha os criados; envie os recusados de novo depois de liberar espaço ou mudar de plano (`upgrade.upgradeUrl`).",
    },
  },
  payload_too_large: {
    when: {
      en: "The request body is larger than the limit: 1 MiB on `/v1`, 64 KiB for the public storefront's orders and the OAuth forms. It is refused before it is parsed.",
      es: "El cuerpo de la solicitud supera el límite: 1 MiB en `/v1`, 64 KiB en los pedidos de la tienda pública y los formularios OAuth. Se rechaza antes de interpretarlo.",
      pt: "O corpo da solicitação passa do limite: 1 MiB em `/v1`, 64 KiB nos pedidos da loja pública e nos formulários OAuth. É recusado antes de ser interpretado.",
    },
    fix: {
      en: "Send less per request: split a product batch (at most 100 per call), link images by URL instead of embedding them.",
      es: "Envía menos por solicitud: divide un lote de productos (100 por llamada como máximo), enlaza las imágenes por URL en vez de incrustarlas.",
      pt: "Envie menos por solicitação: divida um lote de produtos (no máximo 100 por chamada), use URLs de imagens em vez de embuti-las.",
    },
  },
  rate_limit_exceeded: {
    when: {
      en: "The key went over its requests per minute (`rpm_exceeded` in `message`) or per day (`rpd_exceeded`). Every authenticated request counts, errors included.",
      es: "La clave superó sus solicitudes por minuto (`rpm_exceeded` en `message`) o por día (`rpd_exceeded`). Cuenta toda solicitud autenticada, también las que fallan.",
      pt: "A chave passou das suas solicitações por minuto (`rpm_exceeded` em `message`) ou por dia (`rpd_exceeded`). Toda solicitação autenticada conta, inclusive as com erro.",
    },
    fix: {
      en: "Wait `Retry-After` seconds (`retryAfterMs`) before retrying. A day overflow lasts until the UTC day ends: do not retry it in a loop. Watch `X-RateLimit-Remaining`.",
      es: "Espera `Retry-After` segundos (`retryAfterMs`) antes de reintentar. Un exceso diario dura hasta que termina el día UTC: no lo reintentes en bucle. Vigila `X-RateLimit-Remaining`.",
      pt: "Aguarde `Retry-After` segundos (`retryAfterMs`) antes de tentar de novo. Um excesso diário dura até o fim do dia UTC: não repita em loop. Acompanhe `X-RateLimit-Remaining`.",
    },
  },
  internal_error: {
    when: {
      en: "Something failed on Marea's side. Nothing about the cause is sent; it is logged with the request id.",
      es: "Algo falló del lado de Marea. No se envía nada sobre la causa; queda registrada con el id de solicitud.",
      pt: "Algo falhou do lado do Marea. Nada sobre a causa é enviado; ela fica registrada com o id da solicitação.",
    },
    fix: {
      en: "Retry with backoff (with the same `Idempotency-Key` for writes). If it keeps happening, send the `requestId` to the operator.",
      es: "Reintenta con espera creciente (con la misma `Idempotency-Key` en las escrituras). Si se repite, envía el `requestId` al operador.",
      pt: "Tente de novo com espera crescente (com a mesma `Idempotency-Key` nas escritas). Se continuar, envie o `requestId` ao operador.",
    },
  },
  service_unavailable: {
    when: {
      en: "The service cannot reach its database for a moment (a restart, a failover).",
      es: "El servicio no puede llegar a su base de datos por un momento (un reinicio, un cambio de servidor).",
      pt: "O serviço não consegue alcançar o seu banco de dados por um momento (um reinício, uma troca de servidor).",
    },
    fix: {
      en: "Retry after `Retry-After` seconds, with the same `Idempotency-Key` for writes.",
      es: "Reintenta tras `Retry-After` segundos, con la misma `Idempotency-Key` en las escrituras.",
      pt: "Tente de novo depois de `Retry-After` segundos, com a mesma `Idempotency-Key` nas escritas.",
    },
  },
  invalid_email_address: {
    when: {
      en: "Dashboard sign-in: the email address typed is not a valid address.",
      es: "Inicio de sesión en el panel: el correo escrito no es una dirección válida.",
      pt: "Login no painel: o e-mail digitado não é um endereço válido.",
    },
    fix: {
      en: "Type the whole address, like name@example.com.",
      es: "Escribe la dirección completa, como nombre@ejemplo.com.",
      pt: "Digite o endereço completo, como nome@exemplo.com.",
    },
  },
  invalid_sign_in_code: {
    when: {
      en: "Dashboard sign-in: the 6-digit code typed is not the one mailed.",
      es: "Inicio de sesión en el panel: el código de 6 dígitos escrito no es el que se envió.",
      pt: "Login no painel: o código de 6 dígitos digitado não é o que foi enviado.",
    },
    fix: {
      en: "Type the code of the latest sign-in mail; an older mail's code no longer works.",
      es: "Escribe el código del último correo de inicio de sesión; el de un correo anterior ya no sirve.",
      pt: "Digite o código do último e-mail de login; o de um e-mail anterior não funciona mais.",
    },
  },
  sign_in_code_expired: {
    when: {
      en: "Dashboard sign-in: the code expired, or was tried too many times.",
      es: "Inicio de sesión en el panel: el código caducó o se intentó demasiadas veces.",
      pt: "Login no painel: o código expirou ou foi tentado vezes demais.",
    },
    fix: {
      en: "Ask for a new code from the same page.",
      es: "Pide un código nuevo desde la misma página.",
      pt: "Peça um código novo na mesma página.",
    },
  },
  sign_in_expired: {
    when: {
      en: "Dashboard sign-in: the sign-in started too long ago.",
      es: "Inicio de sesión en el panel: el inicio de sesión empezó hace demasiado tiempo.",
      pt: "Login no painel: o login começou há tempo demais.",
    },
    fix: {
      en: "Start again with your email address.",
      es: "Vuelve a empezar con tu correo electrónico.",
      pt: "Comece de novo com o seu e-mail.",
    },
  },
  sign_in_rate_limited: {
    when: {
      en: "Dashboard sign-in: too many codes were asked for, or tried, for this address or from this network.",
      es: "Inicio de sesión en el panel: se pidieron o probaron demasiados códigos para este correo o desde esta red.",
      pt: "Login no painel: foram pedidos ou testados códigos demais para este e-mail ou a partir desta rede.",
    },
    fix: {
      en: "Wait the few minutes the page says, then try again.",
      es: "Espera los minutos que indica la página y vuelve a intentarlo.",
      pt: "Aguarde os minutos que a página indica e tente de novo.",
    },
  },
  session_required: {
    when: {
      en: "A dashboard call was made without a live session (signed out, or the session expired).",
      es: "Se hizo una llamada del panel sin una sesión activa (se cerró la sesión o caducó).",
      pt: "Uma chamada do painel foi feita sem uma sessão ativa (saiu da conta ou a sessão expirou).",
    },
    fix: {
      en: "Sign in again at /signin.",
      es: "Vuelve a iniciar sesión en /signin.",
      pt: "Entre de novo em /signin.",
    },
  },
  storefront_closed: {
    when: {
      en: "A customer ordered on the public storefront while it is closed (outside its opening hours).",
      es: "Un cliente hizo un pedido en la tienda pública mientras está cerrada (fuera de su horario).",
      pt: "Um cliente fez um pedido na loja pública enquanto ela está fechada (fora do horário).",
    },
    fix: {
      en: "Order again once it opens: the message names the next opening and `retryAfterMs` is the wait.",
      es: "Vuelve a pedir cuando abra: el mensaje indica la próxima apertura y `retryAfterMs` es la espera.",
      pt: "Peça de novo quando abrir: a mensagem indica a próxima abertura e `retryAfterMs` é a espera.",
    },
  },
  order_rate_limited: {
    when: {
      en: "Too many orders came from one client address on the public storefront in a short time.",
      es: "Llegaron demasiados pedidos desde una misma dirección en la tienda pública en poco tiempo.",
      pt: "Chegaram pedidos demais de um mesmo endereço na loja pública em pouco tempo.",
    },
    fix: {
      en: "Wait a minute (`Retry-After`) and order again.",
      es: "Espera un minuto (`Retry-After`) y vuelve a pedir.",
      pt: "Aguarde um minuto (`Retry-After`) e peça de novo.",
    },
  },
  cross_site_request: {
    when: {
      en: "A browser request to the dashboard, a form or the MCP endpoint came from another site's page (its `Origin` is not Marea's).",
      es: "Una solicitud de navegador al panel, a un formulario o al endpoint MCP vino de una página de otro sitio (su `Origin` no es el de Marea).",
      pt: "Uma solicitação de navegador ao painel, a um formulário ou ao endpoint MCP veio de uma página de outro site (o `Origin` não é o do Marea).",
    },
    fix: {
      en: "Use Marea's own pages. API clients are not browsers: call `/v1` with a key, which never needs an `Origin`.",
      es: "Usa las páginas de Marea. Los clientes de API no son navegadores: llama a `/v1` con una clave, que nunca necesita `Origin`.",
      pt: "Use as páginas do próprio Marea. Clientes de API não são navegadores: chame `/v1` com uma chave, que nunca precisa de `Origin`.",
    },
  },
  query_too_complex: {
    when: {
      en: "A GraphQL query is over a limit (depth 10, cost 1,000, aliases, tokens or directives) and was refused before running.",
      es: "Una consulta GraphQL supera un límite (profundidad 10, coste 1.000, alias, tokens o directivas) y se rechazó antes de ejecutarse.",
      pt: "Uma consulta GraphQL passa de um limite (profundidade 10, custo 1.000, aliases, tokens ou diretivas) e foi recusada antes de rodar.",
    },
    fix: {
      en: "Ask for fewer fields or smaller pages (`first`), or split the query in two.",
      es: "Pide menos campos o páginas más pequeñas (`first`), o divide la consulta en dos.",
      pt: "Peça menos campos ou páginas menores (`first`), ou divida a consulta em duas.",
    },
  },
  invalid_token: {
    when: {
      en: "MCP: the OAuth access token is unknown, expired or revoked (the app was disconnected).",
      es: "MCP: el token de acceso OAuth es desconocido, caducó o fue revocado (se desconectó la aplicación).",
      pt: "MCP: o token de acesso OAuth é desconhecido, expirou ou foi revogado (o aplicativo foi desconectado).",
    },
    fix: {
      en: "Refresh the token with the refresh token, or authorize the app again.",
      es: "Renueva el token con el token de actualización, o vuelve a autorizar la aplicación.",
      pt: "Renove o token com o token de atualização, ou autorize o aplicativo de novo.",
    },
  },
  host_not_allowed: {
    when: {
      en: "The MCP endpoint was reached under a host name that is not `APP_URL`'s or `MCP_URL`'s (a guard against DNS rebinding).",
      es: "Se llegó al endpoint MCP con un nombre de host que no es el de `APP_URL` ni el de `MCP_URL` (una protección contra DNS rebinding).",
      pt: "O endpoint MCP foi acessado por um nome de host que não é o de `APP_URL` nem o de `MCP_URL` (uma proteção contra DNS rebinding).",
    },
    fix: {
      en: "Connect to the MCP URL exactly as published. Operators: set `APP_URL` and `MCP_URL` to the addresses clients use.",
      es: "Conéctate a la URL MCP exactamente como se publicó. Operadores: configuren `APP_URL` y `MCP_URL` con las direcciones que usan los clientes.",
      pt: "Conecte-se à URL MCP exatamente como publicada. Operadores: configurem `APP_URL` e `MCP_URL` com os endereços que os clientes usam.",
    },
  },
  oauth_request_expired: {
    when: {
      en: "The consent page was submitted after its authorization request expired, or twice.",
      es: "La página de consentimiento se envió después de que caducara su solicitud de autorización, o dos veces.",
      pt: "A página de consentimento foi enviada depois que a solicitação de autorização expirou, ou duas vezes.",
    },
    fix: {
      en: "Start the connection again from the app.",
      es: "Vuelve a iniciar la conexión desde la aplicación.",
      pt: "Comece a conexão de novo pelo aplicativo.",
    },
  },
  oauth_client_unknown: {
    when: {
      en: "OAuth authorization: the `client_id` is not registered, or its registration expired.",
      es: "Autorización OAuth: el `client_id` no está registrado o su registro caducó.",
      pt: "Autorização OAuth: o `client_id` não está registrado ou o registro expirou.",
    },
    fix: {
      en: "Remove Marea from the app and add it again, so it registers anew.",
      es: "Quita Marea de la aplicación y vuelve a añadirla, para que se registre de nuevo.",
      pt: "Remova o Marea do aplicativo e adicione-o de novo, para que ele se registre outra vez.",
    },
  },
  oauth_client_host_not_allowed: {
    when: {
      en: "OAuth authorization: the app's client metadata document URL points at a host Marea does not fetch from (private or internal).",
      es: "Autorización OAuth: la URL del documento de metadatos de cliente de la aplicación apunta a un host del que Marea no descarga (privado o interno).",
      pt: "Autorização OAuth: a URL do documento de metadados de cliente do aplicativo aponta para um host do qual o Marea não busca (privado ou interno).",
    },
    fix: {
      en: "App makers: publish the client metadata document at a public HTTPS URL.",
      es: "Quienes hacen la aplicación: publiquen el documento de metadatos en una URL HTTPS pública.",
      pt: "Quem faz o aplicativo: publique o documento de metadados em uma URL HTTPS pública.",
    },
  },
  oauth_client_document_unavailable: {
    when: {
      en: "OAuth authorization: the app's client metadata document could not be fetched (timeout, error status, too large).",
      es: "Autorización OAuth: no se pudo descargar el documento de metadatos de cliente de la aplicación (tiempo agotado, estado de error, demasiado grande).",
      pt: "Autorização OAuth: não foi possível buscar o documento de metadados de cliente do aplicativo (tempo esgotado, status de erro, grande demais).",
    },
    fix: {
      en: "Try again later; if it keeps failing, tell the app's makers.",
      es: "Inténtalo más tarde; si sigue fallando, avisa a quienes hacen la aplicación.",
      pt: "Tente mais tarde; se continuar falhando, avise quem faz o aplicativo.",
    },
  },
  oauth_client_document_invalid: {
    when: {
      en: "OAuth authorization: the app's client metadata document is not valid JSON, or its fields do not match its URL.",
      es: "Autorización OAuth: el documento de metadatos de cliente de la aplicación no es JSON válido o sus campos no coinciden con su URL.",
      pt: "Autorização OAuth: o documento de metadados de cliente do aplicativo não é JSON válido ou os campos não correspondem à sua URL.",
    },
    fix: {
      en: "App makers: serve a valid document whose `client_id` is its own URL (see the MCP guide).",
      es: "Quienes hacen la aplicación: sirvan un documento válido cuyo `client_id` sea su propia URL (mira la guía de MCP).",
      pt: "Quem faz o aplicativo: sirva um documento válido cujo `client_id` seja a própria URL (veja o guia de MCP).",
    },
  },
  oauth_redirect_uri_unregistered: {
    when: {
      en: "OAuth authorization: `redirect_uri` is not one of the addresses the client registered.",
      es: "Autorización OAuth: `redirect_uri` no es una de las direcciones que registró el cliente.",
      pt: "Autorização OAuth: `redirect_uri` não é um dos endereços que o cliente registrou.",
    },
    fix: {
      en: "App makers: send a `redirect_uri` exactly as registered (scheme, host, port and path).",
      es: "Quienes hacen la aplicación: envíen un `redirect_uri` exactamente como se registró (esquema, host, puerto y ruta).",
      pt: "Quem faz o aplicativo: envie um `redirect_uri` exatamente como registrado (esquema, host, porta e caminho).",
    },
  },
  oauth_request_malformed: {
    when: {
      en: "OAuth authorization: the request lacks `response_type=code` or an S256 PKCE challenge, or has malformed parameters.",
      es: "Autorización OAuth: a la solicitud le falta `response_type=code` o un desafío PKCE S256, o sus parámetros están mal formados.",
      pt: "Autorização OAuth: falta na solicitação `response_type=code` ou um desafio PKCE S256, ou os parâmetros estão malformados.",
    },
    fix: {
      en: "App makers: follow OAuth 2.1 with PKCE (S256); the MCP guide lists the parameters.",
      es: "Quienes hacen la aplicación: sigan OAuth 2.1 con PKCE (S256); la guía de MCP lista los parámetros.",
      pt: "Quem faz o aplicativo: siga o OAuth 2.1 com PKCE (S256); o guia de MCP lista os parâmetros.",
    },
  },
  oauth_rate_limited: {
    when: {
      en: "Too many authorization requests came from one network in a short time.",
      es: "Llegaron demasiadas solicitudes de autorización desde una misma red en poco tiempo.",
      pt: "Chegaram solicitações de autorização demais de uma mesma rede em pouco tempo.",
    },
    fix: {
      en: "Wait a few minutes and connect again from the app.",
      es: "Espera unos minutos y vuelve a conectar desde la aplicación.",
      pt: "Aguarde alguns minutos e conecte de novo pelo aplicativo.",
    },
  },
  connected_app_not_found: {
    when: {
      en: "Dashboard: disconnecting an app that is not connected to this account (already disconnected, or another account's).",
      es: "Panel: se intentó desconectar una aplicación que no está conectada a esta cuenta (ya desconectada, o de otra cuenta).",
      pt: "Painel: tentou-se desconectar um aplicativo que não está conectado a esta conta (já desconectado, ou de outra conta).",
    },
    fix: {
      en: "Reload the list of connected apps; nothing else to do.",
      es: "Recarga la lista de aplicaciones conectadas; no hay nada más que hacer.",
      pt: "Recarregue a lista de aplicativos conectados; não há mais nada a fazer.",
    },
  },
  webhook_delivery_not_found: {
    when: {
      en: "Dashboard: no delivery of this endpoint has that id within the 30 days kept.",
      es: "Panel: ninguna entrega de este endpoint tiene ese id dentro de los 30 días que se guardan.",
      pt: "Painel: nenhuma entrega deste endpoint tem esse id dentro dos 30 dias guardados.",
    },
    fix: {
      en: "Pick a delivery from the endpoint's log; older ones are gone.",
      es: "Elige una entrega del registro del endpoint; las más antiguas ya no existen.",
      pt: "Escolha uma entrega do registro do endpoint; as mais antigas não existem mais.",
    },
  },
  webhook_delivery_in_progress: {
    when: {
      en: "Dashboard: Resend was asked of a delivery that still has an attempt scheduled.",
      es: "Panel: se pidió Reenviar una entrega que aún tiene un intento programado.",
      pt: "Painel: pediu-se Reenviar para uma entrega que ainda tem uma tentativa agendada.",
    },
    fix: {
      en: "Wait until its attempts finish (the log shows the next one), then resend.",
      es: "Espera a que terminen sus intentos (el registro muestra el siguiente) y reenvía.",
      pt: "Aguarde até que as tentativas terminem (o registro mostra a próxima) e reenvie.",
    },
  },
  api_key_not_found: {
    when: {
      en: "Dashboard: the API key id is unknown, already revoked, or another account's.",
      es: "Panel: el id de la clave de API es desconocido, ya fue revocado o es de otra cuenta.",
      pt: "Painel: o id da chave de API é desconhecido, já foi revogado ou é de outra conta.",
    },
    fix: {
      en: "Reload the API keys page and pick a live key.",
      es: "Recarga la página de claves de API y elige una clave vigente.",
      pt: "Recarregue a página de chaves de API e escolha uma chave ativa.",
    },
  },
  session_rate_limited: {
    when: {
      en: 'The dashboard (its tRPC calls, or GraphQL with the session cookie) made more than 600 requests in a minute for one account (docs/security.md, "Limits").',
      es: 'El panel (sus llamadas tRPC, o GraphQL con la cookie de sesión) hizo más de 600 solicitudes en un minuto para una cuenta (docs/security.md, "Limits").',
      pt: 'O painel (suas chamadas tRPC, ou GraphQL com o cookie de sessão) fez mais de 600 solicitações em um minuto para uma conta (docs/security.md, "Limits").',
    },
    fix: {
      en: "Wait for `Retry-After` seconds. A script that drives the dashboard should use an API key over /v1 instead.",
      es: "Espera los segundos de `Retry-After`. Un script que maneja el panel debería usar una clave de API por /v1.",
      pt: "Aguarde os segundos de `Retry-After`. Um script que usa o painel deveria usar uma chave de API pela /v1.",
    },
  },
  webhook_action_rate_limited: {
    when: {
      en: "Test events, resends and recoveries of one account passed 10 a minute or 100 an hour, whatever the door.",
      es: "Los eventos de prueba, reenvíos y recuperaciones de una cuenta pasaron de 10 por minuto o 100 por hora, sea cual sea la vía.",
      pt: "Os eventos de teste, reenvios e recuperações de uma conta passaram de 10 por minuto ou 100 por hora, qualquer que seja a via.",
    },
    fix: {
      en: "Wait for `Retry-After` seconds. To catch up after a receiver outage, read `GET /v1/events?undeliveredTo=` instead of resending one by one.",
      es: "Espera los segundos de `Retry-After`. Para ponerte al día tras una caída del receptor, lee `GET /v1/events?undeliveredTo=` en vez de reenviar uno a uno.",
      pt: "Aguarde os segundos de `Retry-After`. Para se atualizar após uma queda do receptor, leia `GET /v1/events?undeliveredTo=` em vez de reenviar um a um.",
    },
  },
  listen_session_not_found: {
    when: {
      en: "A `/v1/listen_sessions/{sessionId}` call named no session of the key's account: another account's, or a mistyped id.",
      es: "Una llamada a `/v1/listen_sessions/{sessionId}` no corresponde a ninguna sesión de la cuenta de la clave: es de otra cuenta o el id está mal escrito.",
      pt: "Uma chamada a `/v1/listen_sessions/{sessionId}` não corresponde a nenhuma sessão da conta da chave: é de outra conta ou o id foi digitado errado.",
    },
    fix: {
      en: "Use the `id` that `POST /v1/listen_sessions` answered (the CLI prints it), with a key of the same account.",
      es: "Usa el `id` que respondió `POST /v1/listen_sessions` (la CLI lo muestra), con una clave de la misma cuenta.",
      pt: "Use o `id` que `POST /v1/listen_sessions` respondeu (a CLI o mostra), com uma chave da mesma conta.",
    },
  },
  listen_session_closed: {
    when: {
      en: "The stream of a listen session that is closed: by its CLI (Ctrl+C), from the dashboard, after an hour with no stream connected, or because its key was revoked (`closedReason`).",
      es: "El stream de una sesión de escucha cerrada: por su CLI (Ctrl+C), desde el panel, tras una hora sin stream conectado o porque se revocó su clave (`closedReason`).",
      pt: "O stream de uma sessão de escuta fechada: pela CLI (Ctrl+C), pelo painel, após uma hora sem stream conectado ou porque a chave foi revogada (`closedReason`).",
    },
    fix: {
      en: "Run `marea listen` again: it opens a new session with a new signing secret. Events of the gap are in `GET /v1/events`.",
      es: "Vuelve a ejecutar `marea listen`: abre una sesión nueva con un nuevo secreto de firma. Los eventos del intervalo están en `GET /v1/events`.",
      pt: "Execute `marea listen` de novo: ela abre uma sessão nova com um novo segredo de assinatura. Os eventos do intervalo estão em `GET /v1/events`.",
    },
  },
  listen_session_limit_reached: {
    when: {
      en: "`POST /v1/listen_sessions` while the account already has 10 open listen sessions.",
      es: "`POST /v1/listen_sessions` cuando la cuenta ya tiene 10 sesiones de escucha abiertas.",
      pt: "`POST /v1/listen_sessions` quando a conta já tem 10 sessões de escuta abertas.",
    },
    fix: {
      en: "Stop a `marea listen` you no longer use (Ctrl+C closes its session), or close sessions on the dashboard's webhooks page.",
      es: "Detén un `marea listen` que ya no uses (Ctrl+C cierra su sesión) o cierra sesiones en la página de webhooks del panel.",
      pt: "Pare um `marea listen` que você não usa mais (Ctrl+C fecha a sessão) ou feche sessões na página de webhooks do painel.",
    },
  },
  listen_session_none_open: {
    when: {
      en: "`POST /v1/listen_sessions/trigger` (`marea trigger`) while no open listen session of the key's account receives that type: none running, or all filtered with `--events`.",
      es: "`POST /v1/listen_sessions/trigger` (`marea trigger`) cuando ninguna sesión de escucha abierta de la cuenta de la clave recibe ese tipo: no hay ninguna o todas lo filtran con `--events`.",
      pt: "`POST /v1/listen_sessions/trigger` (`marea trigger`) quando nenhuma sessão de escuta aberta da conta da chave recebe esse tipo: não há nenhuma ou todas o filtram com `--events`.",
    },
    fix: {
      en: "Start `marea listen` with the same key's account in another terminal (without an `--events` filter that leaves the type out), then trigger again.",
      es: "Inicia `marea listen` con la misma cuenta en otra terminal (sin un filtro `--events` que excluya el tipo) y vuelve a disparar.",
      pt: "Inicie `marea listen` com a mesma conta em outro terminal (sem um filtro `--events` que exclua o tipo) e dispare de novo.",
    },
  },
  event_not_found: {
    when: {
      en: "`GET /v1/events/{eventId}` named no event your endpoints are entitled to in the last 30 days: another account's event, a test fire, an older one, or a mistyped id.",
      es: "`GET /v1/events/{eventId}` no corresponde a ningún evento al que tengan derecho tus endpoints en los últimos 30 días: un evento de otra cuenta, un evento de prueba, uno más antiguo o un id mal escrito.",
      pt: "`GET /v1/events/{eventId}` não corresponde a nenhum evento a que seus endpoints tenham direito nos últimos 30 dias: um evento de outra conta, um evento de teste, um mais antigo ou um id digitado errado.",
    },
    fix: {
      en: "Use the `id` (`evt_…`) or the `eventId` (UUID) of an item of `GET /v1/events`, with a key of the same account.",
      es: "Usa el `id` (`evt_…`) o el `eventId` (UUID) de un elemento de `GET /v1/events`, con una clave de la misma cuenta.",
      pt: "Use o `id` (`evt_…`) ou o `eventId` (UUID) de um item de `GET /v1/events`, com uma chave da mesma conta.",
    },
  },
  storefront_busy: {
    when: {
      en: 'The public page\'s orders passed 30 in 10 minutes for this storefront, or 600 a minute across all storefronts (docs/api.md, "Public storefront").',
      es: 'Los pedidos de la página pública pasaron de 30 en 10 minutos para esta tienda, o de 600 por minuto entre todas las tiendas (docs/api.md, "Public storefront").',
      pt: 'Os pedidos da página pública passaram de 30 em 10 minutos para esta loja, ou de 600 por minuto somando todas as lojas (docs/api.md, "Public storefront").',
    },
    fix: {
      en: "Customers: try again after `Retry-After`. Merchants expecting more: place phone or counter orders over /v1, which this limit does not count.",
      es: "Clientes: vuelvan a intentarlo después de `Retry-After`. Comercios que esperan más: registren pedidos por teléfono o mostrador por /v1, que este límite no cuenta.",
      pt: "Clientes: tentem de novo depois de `Retry-After`. Lojas que esperam mais: registrem pedidos por telefone ou balcão pela /v1, que este limite não conta.",
    },
  },
  verification_rate_limited: {
    when: {
      en: "The account passed 10 wrong verification codes or 5 new codes in one UTC day.",
      es: "La cuenta pasó de 10 códigos de verificación incorrectos o 5 códigos nuevos en un día UTC.",
      pt: "A conta passou de 10 códigos de verificação errados ou 5 códigos novos em um dia UTC.",
    },
    fix: {
      en: "Wait until the next UTC day (`Retry-After`), then ask for a new code with `POST /v1/me/resend-verification`.",
      es: "Espera al siguiente día UTC (`Retry-After`) y pide un código nuevo con `POST /v1/me/resend-verification`.",
      pt: "Aguarde o próximo dia UTC (`Retry-After`) e peça um código novo com `POST /v1/me/resend-verification`.",
    },
  },
  verification_locked: {
    when: {
      en: "The account used up its verification for good: 20 wrong codes or 10 codes issued in all.",
      es: "La cuenta agotó su verificación para siempre: 20 códigos incorrectos o 10 códigos emitidos en total.",
      pt: "A conta esgotou a verificação de vez: 20 códigos errados ou 10 códigos emitidos no total.",
    },
    fix: {
      en: "The person can still sign in to the dashboard with the address. A partner cancels the account and bootstraps it again.",
      es: "La persona aún puede entrar al panel con la dirección. Un socio cancela la cuenta y la vuelve a crear.",
      pt: "A pessoa ainda pode entrar no painel com o endereço. Um parceiro cancela a conta e a cria de novo.",
    },
  },
  partner_access_off: {
    when: {
      en: "`POST /v1/users/{userId}/keys` for an account whose owner has signed in to the dashboard and has not (or no longer) given your developer account access.",
      es: "`POST /v1/users/{userId}/keys` para una cuenta cuya persona dueña entró al panel y no dio (o retiró) el acceso a tu cuenta de desarrollador.",
      pt: "`POST /v1/users/{userId}/keys` para uma conta cuja pessoa dona entrou no painel e não deu (ou retirou) o acesso à sua conta de desenvolvedor.",
    },
    fix: {
      en: 'Ask the owner to allow partner access on their account page (docs/api.md, "Partner access"); keys you already hold keep working until the owner revokes them.',
      es: 'Pide a la persona dueña que permita el acceso de socios en la página de su cuenta (docs/api.md, "Partner access"); las claves que ya tienes siguen funcionando hasta que las revoque.',
      pt: 'Peça à pessoa dona que permita o acesso de parceiros na página da conta (docs/api.md, "Partner access"); as chaves que você já tem continuam funcionando até que ela as revogue.',
    },
  },
  api_key_limit_reached: {
    when: {
      en: "The account already holds 10 live developer keys, or 100 live user keys.",
      es: "La cuenta ya tiene 10 claves de desarrollador activas, o 100 claves de usuario activas.",
      pt: "A conta já tem 10 chaves de desenvolvedor ativas, ou 100 chaves de usuário ativas.",
    },
    fix: {
      en: "Revoke a key you no longer use (dashboard, API keys or Developers) and create the new one again.",
      es: "Revoca una clave que ya no uses (panel, Claves de API o Desarrolladores) y vuelve a crear la nueva.",
      pt: "Revogue uma chave que você não usa mais (painel, Chaves de API ou Desenvolvedores) e crie a nova de novo.",
    },
  },
  bootstrap_rate_limited: {
    when: {
      en: "Your developer account bootstrapped 100 accounts today (or its operator-set budget), the address was bootstrapped 3 times in 30 days, or 20 of today's bootstraps hit `email_taken`.",
      es: "Tu cuenta de desarrollador creó 100 cuentas hoy (o el presupuesto que fijó el operador), la dirección se creó 3 veces en 30 días, o 20 creaciones de hoy dieron `email_taken`.",
      pt: "Sua conta de desenvolvedor criou 100 contas hoje (ou o orçamento definido pelo operador), o endereço foi criado 3 vezes em 30 dias, ou 20 criações de hoje deram `email_taken`.",
    },
    fix: {
      en: "Wait for `Retry-After` (the next UTC day for the daily budgets). Higher volume is an operator setting (`dev-key create --bootstraps-per-day`).",
      es: "Espera `Retry-After` (el siguiente día UTC para los presupuestos diarios). Un volumen mayor es un ajuste del operador (`dev-key create --bootstraps-per-day`).",
      pt: "Aguarde `Retry-After` (o próximo dia UTC para os orçamentos diários). Um volume maior é uma configuração do operador (`dev-key create --bootstraps-per-day`).",
    },
  },
};
