@NullMarked
package io.switchboard.bench.e2e;

import org.jspecify.annotations.NullMarked;
