import { AppError, ErrorCode, errcodes } from '../errors.js';

/** Face codes 1_025_000_000+ (docs/errors.md). */
export const FaceError = errcodes({
  NO_FACE: [1_025_000_001, 'no face found in the image'],
  SERVICE_UNAVAILABLE: [1_025_000_002, 'the face service is unavailable'],
  IMAGE_UNREADABLE: [
    1_025_000_003,
    'the image cannot be read: not JPEG or PNG, broken, too large, or a URL that could not be fetched',
  ],
  PERSON_EXISTS: [1_025_000_004, 'a face is already enrolled for this person id'],
});

export const noFaceFound = () => new AppError(FaceError.NO_FACE, 'no face found in the image');
/** `cause` reaches the log (errcode ≥ 500 is logged with its error), never the client. */
export const faceUnavailable = (cause?: unknown) =>
  new AppError(FaceError.SERVICE_UNAVAILABLE, 'the face service is unavailable, please try again later', 200, {
    cause,
  });
export const imageUnreadable = (message: string, cause?: unknown) =>
  new AppError(FaceError.IMAGE_UNREADABLE, message, 200, { cause });
export const personExists = () =>
  new AppError(FaceError.PERSON_EXISTS, 'a face is already enrolled for this person: delete it first');
export const invalidPerson = (message: string) => new AppError(ErrorCode.BAD_REQUEST, message);
