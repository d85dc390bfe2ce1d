// The member module's front door: the only file other modules import (docs/architecture.md §4).
export { memberModule } from './member.module.js';
export { enrolHolderFace } from './contact-face.js';
export { MEMBER_COLUMNS, toPageRow, type MemberRow } from './member-profile.repository.js';
export { MOBILE_LOCK } from './member-profile.service.js';
export { MEMBER_TALLY_TRIGGERS, rebuildMemberTally } from './member-tally.repository.js';
export { MemberError } from './member.errors.js';
export { MemberPageResponse } from './member.schemas.js';
export { findOrCreateMemberByMobile } from './channel-member.repository.js';
export { lockMemberStatus, setMemberStatus } from './member-status.repository.js';
export { upsertOnLogin } from './member.repository.js';
