@NullMarked
package io.switchboard.bench.filter;

import org.jspecify.annotations.NullMarked;
