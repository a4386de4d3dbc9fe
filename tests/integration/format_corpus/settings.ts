import {readFileSync} from 'fs'

export type Theme='light'|'dark'|'system'

export interface Settings {
  theme:Theme;
  fontSize:number;
  recentFiles:string[];
  keymap:{[command:string]:string}
}

export const defaults:Settings={theme:'system',fontSize:14,recentFiles:[],keymap:{save:'ctrl+s',open:'ctrl+o',quit:'ctrl+q'}}

function isTheme(value:unknown):value is Theme { return value==='light'||value==='dark'||value==='system' }

export function merge(base:Settings,patch:Partial<Settings>):Settings
{
    const merged={...base,...patch,keymap:{...base.keymap,...(patch.keymap??{})}};
    if(!isTheme(merged.theme)) merged.theme=base.theme;
    merged.fontSize=Math.min(Math.max(merged.fontSize,8),72);
    merged.recentFiles=merged.recentFiles.slice(0,10);
    return merged;
}

export const load=(file:string):Settings=>{
  try {
    const parsed=JSON.parse(readFileSync(file,'utf8')) as Partial<Settings>;
    return merge(defaults,parsed);
  } catch(error) {
    console.warn(`settings: using the defaults, ${file} could not be read:`,error);
    return defaults;
  }
}

export function remember(settings:Settings,file:string):Settings {
  const recent=[file,...settings.recentFiles.filter(f=>f!==file)];
  return {...settings,recentFiles:recent.slice(0,10)};
}
