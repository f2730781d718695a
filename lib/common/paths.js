'use strict';

// Whether `inner` is `outer` or lies below it, compared lexically: for absolute paths in normal
// form, host or virtual ("/" holds every path). Callers resolve links first where they matter.
function isWithin(inner, outer) {
  return inner === outer || inner.startsWith(outer.endsWith('/') ? outer : `${outer}/`);
}

module.exports = { isWithin };
