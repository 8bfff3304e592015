// The ground floor.
#pragma once
