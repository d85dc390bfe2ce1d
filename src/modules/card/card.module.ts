import { defineModule } from '../../platform/module.js';
import { createCardBatchService } from './card-batch.service.js';
import { cardExpiryJob } from './card-expiry.js';
import { createCardModelService } from './card-model.service.js';
import { cardModelRoutes } from './card-model.routes.js';
import { createCardRuleService } from './card-rule.service.js';
import { cardRoutes } from './card.routes.js';
import { createCardService } from './card.service.js';

/** Card models, their rules and prices, card batches and the life of each card (issue 15). */
export const cardModule = defineModule({
  name: 'card',
  routes: ({ db, face, store }) => {
    const models = createCardModelService({ db });
    return [
      ...cardModelRoutes({ models, rules: createCardRuleService({ db, models }) }),
      ...cardRoutes({ cards: createCardService({ db, face, store }), batches: createCardBatchService({ db, models }) }),
    ];
  },
  jobs: ({ db }) => [cardExpiryJob(db)],
});
