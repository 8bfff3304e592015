// Boost.Math's error policy for every numeric kernel: an overflow, a pole or an argument
// outside the domain gives inf or NaN instead of an exception (Boost's default throws), so that
// the engine sees a non-finite value at that point and drops the draw, as it does for log(-1).
#pragma once

#include <boost/math/policies/policy.hpp>

namespace advi {

using MathPolicy = boost::math::policies::policy<
    boost::math::policies::domain_error<boost::math::policies::ignore_error>,
    boost::math::policies::pole_error<boost::math::policies::ignore_error>,
    boost::math::policies::overflow_error<boost::math::policies::ignore_error>,
    boost::math::policies::underflow_error<boost::math::policies::ignore_error>,
    boost::math::policies::denorm_error<boost::math::policies::ignore_error>,
    boost::math::policies::evaluation_error<boost::math::policies::ignore_error>,
    boost::math::policies::rounding_error<boost::math::policies::ignore_error>,
    boost::math::policies::indeterminate_result_error<boost::math::policies::ignore_error>>;

}  // namespace advi
