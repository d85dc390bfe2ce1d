// Suffixes of administrative names, longest first, and the minority names that precede 自治…
const SUFFIXES = [
  '特别行政区',
  '自治区',
  '自治州',
  '自治县',
  '自治旗',
  '地区',
  '林区',
  '特区',
  '省',
  '市',
  '盟',
  '县',
  '区',
  '旗',
];
const PEOPLES = [
  '维吾尔',
  '柯尔克孜',
  '乌孜别克',
  '鄂伦春',
  '达斡尔',
  '哈萨克',
  '塔吉克',
  '塔塔尔',
  '俄罗斯',
  '鄂温克',
  '土家',
  '布依',
  '朝鲜',
  '哈尼',
  '傈僳',
  '拉祜',
  '东乡',
  '纳西',
  '景颇',
  '仫佬',
  '布朗',
  '撒拉',
  '毛南',
  '仡佬',
  '锡伯',
  '阿昌',
  '普米',
  '裕固',
  '独龙',
  '赫哲',
  '门巴',
  '珞巴',
  '基诺',
  '德昂',
  '保安',
  '蒙古',
  '高山',
  '各',
  '回',
  '藏',
  '苗',
  '彝',
  '壮',
  '满',
  '侗',
  '瑶',
  '白',
  '傣',
  '黎',
  '佤',
  '畲',
  '水',
  '土',
  '羌',
  '怒',
  '京',
];

/** 南京市 → 南京, 延边朝鲜族自治州 → 延边, 新疆维吾尔自治区 → 新疆; never shorter than two characters. */
export function shortNameOf(name: string): string {
  let s = name;
  const suffix = SUFFIXES.find((x) => s.endsWith(x) && s.length - x.length >= 2);
  if (suffix) s = s.slice(0, -suffix.length);
  for (let changed = true; changed;) {
    changed = false;
    for (const p of PEOPLES) {
      for (const token of [p + '族', p]) {
        if (s.endsWith(token) && s.length - token.length >= 2) {
          s = s.slice(0, -token.length);
          changed = true;
        }
      }
    }
  }
  return s;
}
