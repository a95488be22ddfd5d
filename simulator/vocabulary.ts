/**
 * Word lists the world generator draws from. People are fictional; teams, coins and companies are
 * real names because that is what real market titles contain and what search features get tested on.
 */

import type { Category } from './world-types.js';

export const CATEGORY_TAGS: Record<Category, { id: string; label: string; slug: string }> = {
  Politics: { id: '2', label: 'Politics', slug: 'politics' },
  Sports: { id: '1', label: 'Sports', slug: 'sports' },
  Crypto: { id: '21', label: 'Crypto', slug: 'crypto' },
  Economics: { id: '100328', label: 'Economy', slug: 'economy' },
  Tech: { id: '1401', label: 'Tech', slug: 'tech' },
  Culture: { id: '596', label: 'Culture', slug: 'pop-culture' },
  Geopolitics: { id: '100265', label: 'Geopolitics', slug: 'geopolitics' },
};

/** Secondary tags per category (labels); ids are generated. */
export const SUB_TAGS: Record<Category, string[]> = {
  Politics: ['Elections', 'US Senate', 'Governors', 'Primaries', 'Congress', 'World Elections'],
  Sports: ['NBA', 'NFL', 'MLB', 'NHL', 'EPL', 'Tennis', 'Games'],
  Crypto: ['Bitcoin', 'Ethereum', 'Solana', 'Crypto Prices', 'Up or Down', 'ETFs'],
  Economics: ['Fed Rates', 'Inflation', 'GDP', 'Jobs Report', 'Recession'],
  Tech: ['AI', 'Big Tech', 'Apple', 'OpenAI', 'SpaceX'],
  Culture: ['Movies', 'Music', 'Awards', 'Box Office', 'TV'],
  Geopolitics: ['Middle East', 'Ukraine', 'Ceasefire', 'Diplomacy', 'Trade War'],
};

export const PEOPLE = [
  'Alex Moreno',
  'Dana Whitfield',
  'Priya Raman',
  'Marcus Hale',
  'Elena Kovac',
  'Jordan Pike',
  'Sofia Brandt',
  'Owen Castillo',
  'Nadia Farouk',
  'Grant Ellison',
  'Tessa Lindqvist',
  'Victor Osei',
  'Hannah Greaves',
  'Leo Marchetti',
  'Ruth Okafor',
  'Samuel Drake',
  'Imani Brooks',
  'Felix Navarro',
];

export const US_STATES = ['Ohio', 'Georgia', 'Arizona', 'Michigan', 'Nevada', 'Pennsylvania', 'Wisconsin', 'Texas', 'Florida'];
export const COUNTRIES = ['France', 'Germany', 'Japan', 'Brazil', 'Canada', 'India', 'Italy', 'Spain', 'Poland', 'Chile'];
export const CONFLICT_PAIRS = [
  ['Israel', 'Hamas'],
  ['Russia', 'Ukraine'],
  ['India', 'Pakistan'],
  ['China', 'Taiwan'],
  ['Armenia', 'Azerbaijan'],
];
export const COINS = [
  { name: 'Bitcoin', ticker: 'btc', base: 95000 },
  { name: 'Ethereum', ticker: 'eth', base: 3400 },
  { name: 'Solana', ticker: 'sol', base: 180 },
  { name: 'XRP', ticker: 'xrp', base: 2.4 },
  { name: 'Dogecoin', ticker: 'doge', base: 0.32 },
];
export const COMPANIES = ['Apple', 'Microsoft', 'Nvidia', 'Alphabet', 'Amazon', 'Meta', 'Tesla', 'OpenAI', 'Anthropic', 'SpaceX'];
export const PRODUCTS = ['a foldable phone', 'AR glasses', 'a humanoid robot', 'a new flagship model', 'a self-driving taxi service'];
export const MOVIES = ['Starfall', 'The Quiet Harbor', 'Neon Saints', 'Paper Kingdoms', 'Last Light on Mars', 'Velvet Hours'];
export const ARTISTS = ['Nova Reyes', 'The Lanterns', 'Kai Sterling', 'Mira Vale', 'Echo Park Collective'];

export interface League {
  key: string;
  name: string;
  /** Tennis and similar: two players instead of two teams. */
  teams: string[];
  abbreviations: string[];
}

export const LEAGUES: League[] = [
  {
    key: 'nba',
    name: 'NBA',
    teams: [
      'Los Angeles Lakers',
      'Boston Celtics',
      'Denver Nuggets',
      'Golden State Warriors',
      'Miami Heat',
      'Milwaukee Bucks',
      'Oklahoma City Thunder',
      'New York Knicks',
    ],
    abbreviations: ['lal', 'bos', 'den', 'gsw', 'mia', 'mil', 'okc', 'nyk'],
  },
  {
    key: 'nfl',
    name: 'NFL',
    teams: ['Kansas City Chiefs', 'Philadelphia Eagles', 'Buffalo Bills', 'Detroit Lions', 'San Francisco 49ers', 'Baltimore Ravens'],
    abbreviations: ['kc', 'phi', 'buf', 'det', 'sf', 'bal'],
  },
  {
    key: 'mlb',
    name: 'MLB',
    teams: ['New York Yankees', 'Los Angeles Dodgers', 'St. Louis Cardinals', 'Arizona Diamondbacks', 'Chicago Cubs', 'Houston Astros'],
    abbreviations: ['nyy', 'lad', 'stl', 'ari', 'chc', 'hou'],
  },
  {
    key: 'nhl',
    name: 'NHL',
    teams: ['Tampa Bay Lightning', 'Montreal Canadiens', 'Edmonton Oilers', 'Anaheim Ducks', 'Toronto Maple Leafs', 'Florida Panthers'],
    abbreviations: ['tb', 'mon', 'edm', 'ana', 'tor', 'fla'],
  },
  {
    key: 'epl',
    name: 'Premier League',
    teams: ['Arsenal', 'Liverpool', 'Manchester City', 'Chelsea', 'Tottenham', 'Newcastle'],
    abbreviations: ['ars', 'liv', 'mci', 'che', 'tot', 'new'],
  },
  {
    key: 'atp',
    name: 'ATP',
    teams: ['Luca Ferrante', 'Mateo Ibarra', 'Jonas Weller', 'Arjun Mehta', 'Tomas Halloran', 'Kenji Arai'],
    abbreviations: ['ferrante', 'ibarra', 'weller', 'mehta', 'halloran', 'arai'],
  },
];

export const PSEUDONYM_ADJECTIVES = [
  'Comfortable',
  'Grumpy',
  'Absolute',
  'Favorable',
  'Aggravating',
  'Mealy',
  'Webbed',
  'Brisk',
  'Hollow',
  'Radiant',
  'Sturdy',
  'Velvet',
  'Nimble',
  'Quiet',
  'Frosty',
  'Lucky',
  'Crimson',
  'Gentle',
  'Rapid',
  'Sly',
];
export const PSEUDONYM_NOUNS = [
  'Insulation',
  'Pipeline',
  'Raise',
  'Webinar',
  'Grin',
  'Oar',
  'Myth',
  'Lantern',
  'Harbor',
  'Compass',
  'Ledger',
  'Orchard',
  'Meteor',
  'Anchor',
  'Falcon',
  'Thimble',
  'Canyon',
  'Quill',
  'Sprocket',
  'Tundra',
];
export const USERNAME_STEMS = [
  'whale',
  'alpha',
  'degen',
  'oracle',
  'sharp',
  'tape',
  'edge',
  'lucky',
  'crypto',
  'macro',
  'pinball',
  'fortune',
  'quant',
  'ghost',
  'moon',
  'delta',
  'sigma',
  'kelly',
  'bayes',
  'tails',
];

export const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
