import { cumulate, hashKey, Rng } from './prng.js';

/**
 * Card holders: names, mobile numbers and 18-digit resident ID numbers (GB 11643-1999) whose region
 * prefix, birth date, sex digit and check digit are all consistent, so the member-portrait statistics
 * (gender, age band, city) read sensible values from them.
 *
 * A person is a pure function of (seed, person index): the check-in stream recomputes the tourist
 * fields from the index instead of keeping a million holders in memory.
 */

const STREAM_PERSON = 3;
const STREAM_PERSON_FLAGS = 4;

// Common surnames, weighted roughly by frequency.
const SURNAMES =
  '王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤'.split(
    '',
  );
const SURNAME_CUMULATIVE = cumulate(SURNAMES.map((_, i) => 1 / (i + 8)));
const MALE_CHARS = '伟强磊军勇杰涛斌超明刚平辉鹏华飞鑫波宁浩凯俊帅峰建国志文博宇轩睿晨阳旭东亮龙海林毅'.split('');
const FEMALE_CHARS = '芳娜敏静丽艳娟霞燕玲婷雪慧琳颖佳欣怡悦彤萱诗梦雨涵晶倩琪瑶蕾红梅兰英秀玉洁'.split('');
const MOBILE_PREFIXES = [
  '130',
  '131',
  '132',
  '133',
  '135',
  '136',
  '137',
  '138',
  '139',
  '150',
  '151',
  '152',
  '153',
  '155',
  '156',
  '157',
  '158',
  '159',
  '166',
  '176',
  '177',
  '178',
  '180',
  '181',
  '182',
  '183',
  '185',
  '186',
  '187',
  '188',
  '189',
  '191',
  '198',
  '199',
];

/**
 * Real district codes (GB/T 2260, present in the region table) with their share of holders: most are
 * locals of the Hangzhou area, then the rest of Zhejiang, the Yangtze delta and a few far cities.
 */
export const HOLDER_DISTRICTS: ReadonlyArray<readonly [code: string, weight: number]> = [
  ['330102', 8],
  ['330105', 8],
  ['330106', 10],
  ['330108', 7],
  ['330109', 9],
  ['330110', 9],
  ['330111', 4],
  ['330112', 3],
  ['330113', 4],
  ['330114', 3],
  ['330122', 2],
  ['330127', 2],
  ['330182', 2],
  ['330203', 2],
  ['330212', 2],
  ['330302', 1.5],
  ['330381', 1],
  ['330402', 1.5],
  ['330502', 1.5],
  ['330602', 1.5],
  ['330604', 1],
  ['330702', 1],
  ['330782', 1],
  ['331002', 1],
  ['310101', 1],
  ['310104', 1],
  ['310115', 1.5],
  ['320102', 1],
  ['320505', 1],
  ['340102', 0.8],
  ['360102', 0.6],
  ['350102', 0.5],
  ['370102', 0.5],
  ['110105', 0.8],
  ['440106', 0.7],
  ['510104', 0.5],
  ['420106', 0.5],
  ['610113', 0.4],
];
const DISTRICT_CUMULATIVE = cumulate(HOLDER_DISTRICTS.map(([, w]) => w));

// Age of holders (years at the reference date): children on family cards, many 25–45, active seniors.
const AGE_BANDS: ReadonlyArray<readonly [from: number, to: number, weight: number]> = [
  [3, 17, 10],
  [18, 30, 20],
  [31, 40, 24],
  [41, 50, 17],
  [51, 60, 14],
  [61, 80, 15],
];
const AGE_CUMULATIVE = cumulate(AGE_BANDS.map(([, , w]) => w));

const ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
const ID_CHECK = '10X98765432';

/** The GB 11643 check character of the first 17 digits. */
export function idCheckDigit(first17: string): string {
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += (first17.charCodeAt(i) - 48) * ID_WEIGHTS[i];
  return ID_CHECK[sum % 11];
}

export function isValidIdNumber(id: string): boolean {
  return /^\d{17}[\dX]$/.test(id) && idCheckDigit(id.slice(0, 17)) === id[17];
}

export interface Person {
  name: string;
  mobile: string;
  idNo: string;
  /** 1 male, 2 female */
  sex: number;
  /** 'YYYY-MM-DD' */
  birthday: string;
  districtCode: string;
  hasFace: boolean;
  /** Whether the holder also has a mini-program member account. */
  hasMember: boolean;
}

const pad = (n: number, w: number) => String(n).padStart(w, '0');

/** Person `index` of the data set (index 0 is the demo member, who always has an account and a face). */
export function person(seed: number, index: number, referenceYear: number): Person {
  const rng = new Rng(seed, STREAM_PERSON, index);
  const sex = rng.chance(0.52) ? 2 : 1;
  const surname = SURNAMES[rng.pickCumulative(SURNAME_CUMULATIVE)];
  const chars = sex === 1 ? MALE_CHARS : FEMALE_CHARS;
  const given = rng.chance(0.7) ? rng.pick(chars) + rng.pick(chars) : rng.pick(chars);
  const mobile = rng.pick(MOBILE_PREFIXES) + pad(rng.int(100_000_000), 8);
  const [from, to] = AGE_BANDS[rng.pickCumulative(AGE_CUMULATIVE)];
  const age = rng.range(from, to);
  const dayOfYear = rng.int(365);
  const birth = new Date(referenceYear - age, 0, 1 + dayOfYear);
  const birthday = `${birth.getFullYear()}-${pad(birth.getMonth() + 1, 2)}-${pad(birth.getDate(), 2)}`;
  const districtCode = HOLDER_DISTRICTS[rng.pickCumulative(DISTRICT_CUMULATIVE)][0];
  // Sequence digits: the last of the three is odd for men, even for women.
  const sequence = rng.int(100) * 10 + (sex === 1 ? 1 + 2 * rng.int(5) : 2 * rng.int(5));
  const first17 = districtCode + birthday.replace(/-/g, '') + pad(sequence, 3);
  const { hasFace, hasMember } = personFlags(seed, index);
  return {
    name: surname + given,
    mobile,
    idNo: first17 + idCheckDigit(first17),
    sex,
    birthday,
    districtCode,
    hasFace,
    hasMember,
  };
}

/**
 * Whether a person enrolled a face and has a member account, from a hash alone (cheap enough to ask
 * for every person and every check). Person 0, the demo member, has both.
 */
export function personFlags(seed: number, index: number): { hasFace: boolean; hasMember: boolean } {
  const h = hashKey(seed, STREAM_PERSON_FLAGS, index);
  return { hasFace: index === 0 || h % 100 < 35, hasMember: index === 0 || (h >>> 8) % 100 < 70 };
}

export function facePhotoUrl(personIndex: number): string {
  return `/demo/faces/${pad(personIndex, 7)}.jpg`;
}

/**
 * Persons by index, remembered up to `limit` at a time (then forgotten all at once): the check-in
 * stream meets the same holders again and again, and building one costs a couple of microseconds.
 */
export class PersonCache {
  private readonly map = new Map<number, Person>();

  constructor(
    private readonly seed: number,
    private readonly referenceYear: number,
    private readonly limit = 300_000,
  ) {}

  get(index: number): Person {
    let p = this.map.get(index);
    if (p === undefined) {
      if (this.map.size >= this.limit) this.map.clear();
      p = person(this.seed, index, this.referenceYear);
      this.map.set(index, p);
    }
    return p;
  }
}
