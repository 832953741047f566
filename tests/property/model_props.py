def prop_models_valid(h, case, rng): pass
def prop_models_invalid(h, case, rng): pass
def prop_peak(h, case, rng): pass
def prop_peak_oversubscribed(h, case, rng): pass
