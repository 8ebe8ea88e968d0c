@NullMarked
package io.switchboard.bench.limits;

import org.jspecify.annotations.NullMarked;
