// The card module's front door: the only file other modules import (docs/architecture.md §4).
export { cardModule } from './card.module.js';
export { insertCardModel, setCardModelFlags } from './card-model.repository.js';
export { insertPrice, insertRule, softDeleteRule } from './card-rule.repository.js';
export { endBinding, insertBinding } from './card.repository.js';
export { cardModelVisible, cardVisible } from './card-scope.js';
export { activatePoolCard, bindActivatedCard, takePoolCard } from './pool-card.repository.js';
export { claimBindingsByPhone, markCardsBound } from './member-cards.repository.js';
