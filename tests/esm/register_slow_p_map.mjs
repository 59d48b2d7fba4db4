// Loaded by `node --import`: registers slow_p_map.mjs's hooks before the runner starts.
import { register } from 'node:module';

register('./slow_p_map.mjs', import.meta.url);
