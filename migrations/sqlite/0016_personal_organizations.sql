-- A developer's personal organization is called "Personal": the header
-- already shows their email beside it. Those still named after their
-- admin's email (as 0014 and sign-up named them) are renamed; a name a
-- developer chose stays.
UPDATE organizations SET name = 'Personal'
WHERE EXISTS (
    SELECT 1 FROM org_members m JOIN developers d ON d.id = m.developer_id
    WHERE m.org_id = organizations.id AND m.role = 'admin'
      AND organizations.name = substr(d.email, 1, 100)
);
