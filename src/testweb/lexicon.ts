/**
 * Hand-written Chinese lexicons and sentence templates for the test web's article text.
 * Written by hand because no library generates topical Chinese news prose; the words are
 * grouped so templates can place them grammatically (things, actions, actors).
 */
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Rng } from '../util/rng.js';

export type TopicId = 'quake' | 'sports' | 'finance' | 'tech' | 'ent';

export interface TopicLexicon {
  id: TopicId;
  label: string;
  /** The words a user would type for this topic (first ones strongest). */
  keywords: string[];
  nouns: string[];
  verbs: string[];
  actors: string[];
  /** Short forum replies typical of the topic. */
  replies: string[];
  /** THUCNews class indexes whose headlines fit the topic. */
  thucClasses: number[];
}

const w = (s: string) => s.trim().split(/\s+/);

export const TOPIC_LEXICONS: TopicLexicon[] = [
  {
    id: 'quake',
    label: '地震/救灾',
    keywords: w('地震 救援 汶川 灾区 抗震救灾 余震 救灾 震区 伤员 重建'),
    nouns: w(`地震 震区 灾区 余震 震中 震级 救援队 救灾物资 帐篷 伤员 遇难者 幸存者 堰塞湖 废墟
      灾民 安置点 活动板房 医疗队 直升机 生命通道 唐家山 北川 汶川 映秀 都江堰 什邡 绵竹 青川
      抗震救灾 捐款 献血 搜救犬 防疫 灾后重建 临时住所 饮用水 药品 塌方 山体滑坡 泥石流 震感
      里氏8.0级 余震监测 心理援助 校舍 伤亡人数 失踪人员 冲锋舟 生命探测仪 全国哀悼日 救灾款
      震后 受灾群众 救援现场 抗震 次生灾害 地质灾害 应急响应 救灾帐篷 灾情`),
    verbs: w(`救援 抢救 转移 安置 搜救 抢通 空投 运送 捐赠 排查 疏散 救治 清理 监测 重建 赶赴 驰援
      援建 挖掘 抢修 发放 慰问`),
    actors: w(`国务院抗震救灾总指挥部 中国地震局 四川省地震局 成都军区 救援人员 医护人员 志愿者 消防官兵
      武警战士 民政部 卫生部 中国红十字会 灾区群众 当地村民 空降兵 地震专家`),
    replies: w('为灾区人民祈福 汶川挺住 已经捐款了 救援人员辛苦了 愿逝者安息 中国加油 同胞们挺住 刚去献血回来'),
    thucClasses: [3, 4, 5, 6],
  },
  {
    id: 'sports',
    label: '体育',
    keywords: w('体育 比赛 奥运 冠军 球队 金牌 联赛 决赛'),
    nouns: w(`奥运会 北京奥运 火炬传递 金牌 银牌 铜牌 冠军 决赛 半决赛 预赛 男篮 女排 男足 中超
      联赛 球迷 主教练 射门 进球 点球 比分 赛季 转会 NBA 火箭队 跨栏 田径 游泳 跳水 体操
      举重 乒乓球 羽毛球 网球 积分榜 世界纪录 奥运村 鸟巢 水立方 运动员 裁判 热身赛 训练
      伤病 国家队 亚洲杯 世界杯 预选赛 主场 客场 开幕式 季后赛 全明星 欧洲杯 助攻 篮板 门将
      后卫 前锋 中场 加时赛`),
    verbs: w(`夺得 击败 战胜 晋级 卫冕 打破 领先 扳平 逆转 签约 退役 集训 出战 轮换 防守 进攻 冲击
      备战 摘得 淘汰`),
    actors: w(`中国队 国家体育总局 北京奥组委 国际奥委会 主教练 队长 姚明 刘翔 郭晶晶 林丹 张怡宁 中国男篮
      中国女排 皇家马德里 曼联 湖人队`),
    replies: w('这球踢得太臭了 支持国足 刘翔加油 裁判黑哨 期待奥运 火箭必胜 好球 主教练该下课了'),
    thucClasses: [7],
  },
  {
    id: 'finance',
    label: '财经',
    keywords: w('财经 股市 经济 银行 基金 投资 A股 利率'),
    nouns: w(`股市 A股 沪指 深成指 上证综指 成交量 涨停 跌停 大盘 基金 券商 银行 央行 利率 加息
      存款准备金率 通胀 CPI GDP 人民币 汇率 外汇储备 债券 IPO 上市公司 市值 市盈率 净利润
      营业收入 财报 季报 年报 投资者 散户 牛市 熊市 板块 蓝筹股 中小板 楼市 房价 油价 期货 黄金
      保险 信贷 贷款 宏观调控 货币政策 财政政策 进出口 贸易顺差 大小非 解禁 融资 并购 股权 分红
      增发 资金面 流动性 估值`),
    verbs: w(`上涨 下跌 收涨 收跌 回调 反弹 减持 增持 发行 融资 调控 加息 降息 盈利 亏损 上市 停牌
      复牌 震荡 放量 缩量`),
    actors: w(`中国人民银行 证监会 银监会 国家统计局 财政部 发改委 分析师 基金经理 中国石油 工商银行
      中国平安 招商银行 中信证券 机构投资者 经济学家 国际货币基金组织`),
    replies: w('又被套了 割肉了 明天会反弹吗 牛市还会来的 央行又加息 满仓踏空 价值投资 坚决持有'),
    thucClasses: [0, 2],
  },
  {
    id: 'tech',
    label: '科技',
    keywords: w('科技 互联网 手机 电脑 软件 网络 芯片 数码'),
    nouns: w(`互联网 手机 3G 电脑 笔记本 芯片 处理器 操作系统 软件 浏览器 搜索引擎 网民 宽带 电信
      运营商 诺基亚 iPhone 谷歌 微软 百度 腾讯 阿里巴巴 电子商务 网游 服务器 数据中心 开源
      Linux 数码相机 液晶电视 显卡 内存 硬盘 博客 视频网站 门户网站 上网本 蓝牙 GPS 导航仪 TD-SCDMA
      牌照 杀毒软件 病毒 木马 黑客 网络安全 域名 带宽 新品 发布会 像素 屏幕 触摸屏 主板 CPU
      即时通讯 网购 在线支付`),
    verbs: w(`发布 推出 升级 收购 研发 测试 下载 安装 上线 开通 支持 兼容 破解 拦截 集成 量产 降价
      上市 评测 开发`),
    actors: w(`工信部 中国移动 中国联通 中国电信 英特尔 AMD 联想 华为 中兴 苹果公司 索尼 三星 戴尔
      惠普 网易 新浪`),
    replies: w('已经入手了 价格太贵 等降价再说 求下载地址 系统好卡 沙发 配置很强 坐等评测'),
    thucClasses: [4],
  },
  {
    id: 'ent',
    label: '娱乐',
    keywords: w('娱乐 明星 电影 演唱会 歌手 导演 票房 电视剧'),
    nouns: w(`电影 导演 演员 明星 票房 首映 影片 电视剧 综艺 歌手 专辑 演唱会 新歌 MV 颁奖礼
      金马奖 金像奖 戛纳电影节 红毯 剧组 杀青 片场 绯闻 恋情 经纪人 粉丝 签售会 发布会 主演
      编剧 角色 造型 写真 封面 娱乐圈 选秀 超级女声 快乐男声 话剧 影帝 影后 大片 预告片 海报
      主题曲 排行榜 唱片公司 巡演 彩排 婚礼 绯闻女友 狗仔队 访谈节目 收视率 卫视 档期 续集
      特效 武打 喜剧 爱情片`),
    verbs: w(`主演 执导 拍摄 发行 上映 亮相 现身 出席 宣传 献唱 夺得 入围 曝光 否认 承认 合作 复出
      加盟 签约 录制`),
    actors: w(`周杰伦 刘德华 张艺谋 冯小刚 成龙 章子怡 周星驰 王菲 李宇春 赵薇 梁朝伟 巩俐 华谊兄弟
      湖南卫视 央视 好莱坞`),
    replies: w('好期待 偶像加油 这电影太烂了 已经看过了 支持李宇春 主题曲好听 求资源 炒作而已'),
    thucClasses: [9],
  },
];

/** 公益 (charity) text for the tunnel pages: off-topic, but a door into a quake cluster. */
export const CHARITY = {
  nouns: w(`助学 扶贫 希望工程 留守儿童 环保 植树 义工 公益组织 基金会 慈善晚会 贫困山区 支教 图书室
    爱心午餐 助残 敬老院 公益项目 善款 社会责任 爱心人士 公益广告 募集 资助 贫困学生 乡村教师`),
  verbs: w('资助 捐建 发起 组织 参与 倡导 关爱 帮扶 启动 筹集'),
  actors: w('中华慈善总会 中国青少年发展基金会 爱心企业 志愿者协会 公益律师 社区居民'),
};

export const PLACES = w('北京 上海 广州 深圳 成都 重庆 武汉 西安 南京 杭州 天津 沈阳 长沙 郑州 昆明 兰州 香港 台北');
export const SOURCES = w('新华社 中新社 人民网 央视国际 中国新闻网 新京报 南方都市报 华西都市报 第一财经日报 本报');
export const FILLER = w(`此外 与此同时 据了解 记者注意到 值得一提的是 业内人士指出 有关负责人表示 总的来看 另一方面
  截至目前 据统计 事实上`);
const ADJ = w('明显 显著 积极 平稳 迅速 有限 突出 关键');
const PROG = w('全面展开 有序推进 基本完成 取得进展 进入关键阶段 继续进行');
const TIMES = w('今天上午 昨天下午 日前 近日 本周 昨晚 今天凌晨 当天');
const UNITS = w('个 名 项 批 支 家 次');

/** Sentence templates: {N} thing, {V} action, {A} actor, {L} place, {S} source, {F} filler, … */
const TEMPLATES = [
  '{T}，{A}在{L}{V}{N}，{N}工作{P}。',
  '据{S}报道，{A}表示，{N}和{N}是当前的重点。',
  '{A}{V}了{NUM}{U}{N}，{N}情况{ADJ}好转。',
  '{F}，{L}的{N}已经{P}，{A}随即{V}{N}。',
  '记者从{A}获悉，{N}{P}，预计下周{V}{N}。',
  '{F}，{N}对{N}的影响{ADJ}，{A}将继续{V}。',
  '目前，{L}{N}{P}，{A}正在{V}{N}。',
  '“{N}{V}得很{ADJ}，”一位来自{L}的{A}说，“{N}比我们想象的更重要。”',
  '{T}，{NUM}{U}{N}在{L}{V}，{S}记者在现场看到了{N}。',
  '{A}强调，要进一步{V}{N}，确保{N}{P}。',
  '在{L}，{N}成为人们关注的焦点，{A}已经{V}{N}。',
  '{F}，这是{A}今年第{NUM}次{V}{N}。',
];

function fill(rng: Rng, tpl: string, lx: { nouns: string[]; verbs: string[]; actors: string[] }): string {
  return tpl.replace(/\{(\w+)\}/g, (_, k: string) => {
    switch (k) {
      case 'N': return rng.pick(lx.nouns);
      case 'V': return rng.pick(lx.verbs);
      case 'A': return rng.pick(lx.actors);
      case 'L': return rng.pick(PLACES);
      case 'S': return rng.pick(SOURCES);
      case 'F': return rng.pick(FILLER);
      case 'T': return rng.pick(TIMES);
      case 'P': return rng.pick(PROG);
      case 'ADJ': return rng.pick(ADJ);
      case 'U': return rng.pick(UNITS);
      case 'NUM': return String(rng.int(2, 99));
      default: return '';
    }
  });
}

export function lexiconOf(topic: TopicId): TopicLexicon {
  const lx = TOPIC_LEXICONS.find((t) => t.id === topic);
  if (!lx) throw new Error(`unknown topic ${topic}`);
  return lx;
}

export function sentence(rng: Rng, lx: { nouns: string[]; verbs: string[]; actors: string[] }): string {
  return fill(rng, rng.pick(TEMPLATES), lx);
}

export function paragraph(rng: Rng, lx: { nouns: string[]; verbs: string[]; actors: string[] }, n = rng.int(2, 4)): string {
  let s = '';
  for (let i = 0; i < n; i++) s += sentence(rng, lx);
  return s;
}

const TITLE_TEMPLATES = ['{A}{V}{N}', '{L}{N}{P}', '{A}：{N}{P}', '{N}{V}{N} {A}回应', '{L}{A}{V}{NUM}{U}{N}', '组图：{L}{N}现场'];

export function headline(rng: Rng, lx: { nouns: string[]; verbs: string[]; actors: string[] }): string {
  return fill(rng, rng.pick(TITLE_TEMPLATES), lx);
}

const QUAKE_RE = /地震|救灾|灾区|抗震|汶川|余震|震后|灾民|震区/;

/**
 * Real headlines per topic from THUCNews (`title<TAB>class-index`). The quake topic takes the
 * disaster headlines of the society/politics/education/science classes; other topics drop
 * headlines that mention disasters so the labels stay clean. Returns null when the dir is absent.
 */
export function loadThucHeadlines(dir: string): Map<TopicId, string[]> | null {
  const files = ['dev.txt', 'test.txt'].map((f) => join(dir, f));
  if (!files.every((f) => existsSync(f))) return null;
  const out = new Map<TopicId, string[]>(TOPIC_LEXICONS.map((t) => [t.id, []]));
  for (const f of files) {
    for (const line of readFileSync(f, 'utf8').split('\n')) {
      const tab = line.lastIndexOf('\t');
      if (tab < 0) continue;
      const title = line.slice(0, tab).trim();
      const cls = Number(line.slice(tab + 1));
      if (!title || !Number.isInteger(cls)) continue;
      const quake = QUAKE_RE.test(title);
      for (const t of TOPIC_LEXICONS) {
        if (!t.thucClasses.includes(cls)) continue;
        if (t.id === 'quake' ? quake : !quake) out.get(t.id)!.push(title);
      }
    }
  }
  // A headline in two candidate classes (science is both quake-source and tech) goes to one only.
  const quakeSet = new Set(out.get('quake'));
  out.set('tech', out.get('tech')!.filter((h) => !quakeSet.has(h)));
  return out;
}
