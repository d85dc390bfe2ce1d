import { AppError, conflict, errcodes, notFound } from '../../platform/errors.js';

/**
 * Member module codes 1_003_000_000+ (docs/architecture.md §6, docs/errors.md). The profile, contact and phone
 * refusals use the common codes (404, 409) and the SMS and face codes of the platform
 * (1_002_000_004/005, 1_024_…, 1_025_…), which clients already tell apart.
 */
export const MemberError = errcodes({
  MP_LOGIN_FAILED: [1_003_000_001, 'mini-program login failed: WeChat refused the code (errmsg carries its message)'],
  FACE_ENROLLED_ELSEWHERE: [
    1_003_000_002,
    'a face for this identity number was enrolled by someone else: nothing was changed',
  ],
  FACE_ENROLMENT_BUSY: [
    1_003_000_003,
    'a face for this identity number is being enrolled by another request: try again in a moment',
  ],
});

/**
 * A contact's face under an identity number whose face someone else enrolled (another member's contact,
 * or staff binding a card): a member cannot prove it is that person, so it must not replace that face.
 */
export const faceEnrolledElsewhere = () =>
  new AppError(
    MemberError.FACE_ENROLLED_ELSEWHERE,
    'a face is already enrolled for this identity number by someone else: the holder can change it at a service desk',
  );

/**
 * Another request (a member's contact, or staff at bindCard) is enrolling a face under the identity
 * number: nothing was changed and the same request may be sent again. A code of its own, as the common
 * 409 already means "contact already exists" on the same routes.
 */
export const faceEnrolmentBusy = () =>
  new AppError(
    MemberError.FACE_ENROLMENT_BUSY,
    'a face for this identity number is being enrolled right now, please try again in a moment',
  );

/** Another member's contact answers the same as a missing one: its existence is not revealed. */
export const contactNotFound = () => notFound('contact');
export const memberNotFound = () => notFound('member');
export const contactExists = () => conflict('you already have a contact with this identity number');
export const tooManyContacts = (max: number) => conflict(`a member may keep at most ${max} contacts: delete one first`);
export const phoneTaken = () => conflict('this phone number is already bound to another member');
